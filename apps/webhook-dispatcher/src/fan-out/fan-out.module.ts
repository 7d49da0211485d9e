import { Module } from '@nestjs/common';
import { DeliveryModule } from '../delivery/delivery.module.js';
import { MetricsModule } from '../metrics/metrics.module.js';
import { WebhookModule } from '../webhook/webhook.module.js';
import { FanOutConsumer } from './fan-out.consumer.js';
import { FanOutService } from './fan-out.service.js';

/** The platform's events, fanned out to one delivery per matching webhook. */
@Module({
  imports: [MetricsModule, WebhookModule, DeliveryModule],
  providers: [FanOutService, FanOutConsumer],
})
export class FanOutModule {}
