import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SessionModule } from '../session/session.module.js';
import { WebhookLogModule } from '../webhook-log/webhook-log.module.js';
import { WebhookModule } from '../webhook/webhook.module.js';
import { DeliveryCommandPublisher } from './delivery-command.publisher.js';
import { DeliveryRef } from './delivery-ref.entity.js';
import { DeliveryRefRepository } from './delivery-ref.repository.js';
import { WebhookDeliveryController } from './webhook-delivery.controller.js';
import { WebhookDeliveryService } from './webhook-delivery.service.js';

@Module({
  imports: [TypeOrmModule.forFeature([DeliveryRef]), SessionModule, WebhookModule, WebhookLogModule],
  controllers: [WebhookDeliveryController],
  providers: [WebhookDeliveryService, DeliveryCommandPublisher, DeliveryRefRepository],
})
export class WebhookDeliveryModule {}
