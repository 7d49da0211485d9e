import { Module } from '@nestjs/common';
import { OperationalEventModule } from '../operational-event/operational-event.module.js';
import { SessionModule } from '../session/session.module.js';
import { WebhookModule } from '../webhook/webhook.module.js';
import { NoticeController } from './notice.controller.js';
import { NoticeEmailRepository } from './notice-email.repository.js';
import { NoticeEmailSender } from './notice-email.sender.js';
import { NoticeMailer } from './notice.mailer.js';
import { NoticeRepository } from './notice.repository.js';
import { NoticeService } from './notice.service.js';
import { WebhookHealthConsumer } from './webhook-health.consumer.js';

/**
 * Notices about failing and disabled webhooks: from the dispatcher's reports, in the backend and by e-mail (through an
 * outbox).
 */
@Module({
  imports: [SessionModule, WebhookModule, OperationalEventModule],
  controllers: [NoticeController],
  providers: [
    NoticeRepository,
    NoticeEmailRepository,
    NoticeMailer,
    NoticeEmailSender,
    NoticeService,
    WebhookHealthConsumer,
  ],
})
export class NoticeModule {}
