import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SessionModule } from '../session/session.module.js';
import { WebhookModule } from '../webhook/webhook.module.js';
import { RecoverCommandPublisher } from './recover-command.publisher.js';
import { RecoverRef } from './recover-ref.entity.js';
import { WebhookRecoverController } from './webhook-recover.controller.js';
import { WebhookRecoverRepository } from './webhook-recover.repository.js';
import { WebhookRecoverService } from './webhook-recover.service.js';

@Module({
  imports: [TypeOrmModule.forFeature([RecoverRef]), SessionModule, WebhookModule],
  controllers: [WebhookRecoverController],
  providers: [WebhookRecoverService, WebhookRecoverRepository, RecoverCommandPublisher],
})
export class WebhookRecoverModule {}
