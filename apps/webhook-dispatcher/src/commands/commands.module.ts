import { Module } from '@nestjs/common';
import { DeliveryQueueModule } from '../delivery/delivery-queue.module.js';
import { DeliveryModule } from '../delivery/delivery.module.js';
import { RecoverModule } from '../recover/recover.module.js';
import { WebhookModule } from '../webhook/webhook.module.js';
import { CommandsConsumer } from './commands.consumer.js';
import { ManualDeliveryService } from './manual-delivery.service.js';

/** The merchant backend's commands: test deliveries and resends (manual deliveries), recovers started and cancelled. */
@Module({
  imports: [WebhookModule, DeliveryModule, DeliveryQueueModule, RecoverModule],
  providers: [ManualDeliveryService, CommandsConsumer],
})
export class CommandsModule {}
