import { Module } from '@nestjs/common';
import { DeliveryModule } from '../delivery/delivery.module.js';
import { RecoverModule } from '../recover/recover.module.js';
import { WebhookModule } from '../webhook/webhook.module.js';
import { WebhookChangesConsumer } from './webhook-changes.consumer.js';

/**
 * webhook-config's `webhook.changed` messages: the cache forgets the webhook, recovers' states are read again, and a
 * deleted webhook's deliveries and log go. Apart from WebhookModule, which the features that do that import.
 */
@Module({
  imports: [WebhookModule, DeliveryModule, RecoverModule],
  providers: [WebhookChangesConsumer],
})
export class WebhookChangesModule {}
