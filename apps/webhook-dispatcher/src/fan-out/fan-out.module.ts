import { Module } from '@nestjs/common';
import { DeliveryQueueModule } from '../delivery/delivery-queue.module.js';
import { DeliveryModule } from '../delivery/delivery.module.js';
import { MetricsModule } from '../metrics/metrics.module.js';
import { WebhookModule } from '../webhook/webhook.module.js';
import { FanOutConsumer } from './fan-out.consumer.js';
import { FanOutService } from './fan-out.service.js';

/**
 * The platform's events, fanned out to one delivery per matching webhook, each one's first attempt made here. Exports
 * the service: the graceful shutdown stops its first attempts.
 */
@Module({
  imports: [MetricsModule, WebhookModule, DeliveryModule, DeliveryQueueModule],
  providers: [FanOutService, FanOutConsumer],
  exports: [FanOutService],
})
export class FanOutModule {}
