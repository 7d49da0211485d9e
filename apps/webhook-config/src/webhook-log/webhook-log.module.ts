import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SessionModule } from '../session/session.module.js';
import { WebhookModule } from '../webhook/webhook.module.js';
import { WebhookLogController } from './webhook-log.controller.js';
import { WebhookLogRepository } from './webhook-log.repository.js';
import { WebhookLogService } from './webhook-log.service.js';
import { WebhookLogEntity } from './webhook-log.entity.js';

@Module({
  imports: [TypeOrmModule.forFeature([WebhookLogEntity]), SessionModule, WebhookModule],
  controllers: [WebhookLogController],
  providers: [WebhookLogRepository, WebhookLogService],
  exports: [WebhookLogRepository],
})
export class WebhookLogModule {}
