import { Module } from '@nestjs/common';
import { DeliveryPublisher } from './delivery.publisher.js';

/**
 * The one place that publishes delivery messages (DeliveryPublisher), a module apart from DeliveryModule: the
 * recovers' job queues deliveries, and DeliveryModule imports RecoverModule (the gate reads recovers' states, the log
 * writer adds their sent counts), so RecoverModule cannot import DeliveryModule.
 */
@Module({
  providers: [DeliveryPublisher],
  exports: [DeliveryPublisher],
})
export class DeliveryQueueModule {}
