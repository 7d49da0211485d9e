import { Module } from '@nestjs/common';
import { SessionModule } from '../session/session.module.js';
import { WebhookModule } from '../webhook/webhook.module.js';
import { NoticeController } from './notice.controller.js';
import { NoticeMailer } from './notice.mailer.js';
import { NoticeRepository } from './notice.repository.js';
import { NoticeService } from './notice.service.js';
import { WebhookHealthConsumer } from './webhook-health.consumer.js';

/** Notices about failing and disabled webhooks: from the dispatcher's reports, in the backend and by e-mail. */
@Module({
  imports: [SessionModule, WebhookModule],
  controllers: [NoticeController],
  providers: [NoticeRepository, NoticeMailer, NoticeService, WebhookHealthConsumer],
})
export class NoticeModule {}
