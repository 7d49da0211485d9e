import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { WebhookDeliveryEntity } from '#persistence';
import { SessionModule } from '../session/session.module.js';
import { WebhookLogModule } from '../webhook-log/webhook-log.module.js';
import { WebhookModule } from '../webhook/webhook.module.js';
import { DeliveryPublisher } from './delivery.publisher.js';
import { WebhookDeliveryController } from './webhook-delivery.controller.js';
import { WebhookDeliveryRepository } from './webhook-delivery.repository.js';
import { WebhookDeliveryService } from './webhook-delivery.service.js';

@Module({
  imports: [TypeOrmModule.forFeature([WebhookDeliveryEntity]), SessionModule, WebhookModule, WebhookLogModule],
  controllers: [WebhookDeliveryController],
  providers: [WebhookDeliveryRepository, WebhookDeliveryService, DeliveryPublisher],
})
export class WebhookDeliveryModule {}
