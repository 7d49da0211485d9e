import { Module } from '@nestjs/common';
import { CommonModule } from '../common/common.module.js';
import { MetricsModule } from '../metrics/metrics.module.js';
import { RecoverModule } from '../recover/recover.module.js';
import { WebhookHealthModule } from '../webhook-health/webhook-health.module.js';
import { WebhookModule } from '../webhook/webhook.module.js';
import { DeliveryLogWriter } from './delivery-log.writer.js';
import { DeliveryQueueModule } from './delivery-queue.module.js';
import { DeliveryWaitPump } from './delivery-wait.pump.js';
import { DeliveryWaitRepository } from './delivery-wait.repository.js';
import { DeliveryAttempt } from './delivery.attempt.js';
import { DeliveryConsumer } from './delivery.consumer.js';
import { DeliveryGate } from './delivery.gate.js';
import { DeliveryRepository } from './delivery.repository.js';
import { DeliveryService } from './delivery.service.js';
import { HttpSender } from './http.sender.js';
import { SupersededRepository } from './superseded.repository.js';
import { WebhookRateLimiter } from './webhook-rate.limiter.js';

/**
 * Deliveries and their attempts: the delivery rows (DeliveryRepository), the consumer of every delivery lane, the
 * gate, the attempt and its log (webhook_log, webhook_delivery_outcome, subject_delivered), the rate limit and the
 * schedule of waiting deliveries. Exports the repository and the log writer (fan-out and commands create deliveries;
 * the fan-out logs the skipped ones) and the service (the shutdown waits for its detached attempts).
 */
@Module({
  imports: [CommonModule, MetricsModule, WebhookModule, WebhookHealthModule, RecoverModule, DeliveryQueueModule],
  providers: [
    DeliveryRepository,
    DeliveryLogWriter,
    HttpSender,
    WebhookRateLimiter,
    DeliveryWaitRepository,
    DeliveryWaitPump,
    SupersededRepository,
    DeliveryAttempt,
    DeliveryGate,
    DeliveryService,
    DeliveryConsumer,
  ],
  exports: [DeliveryRepository, DeliveryLogWriter, DeliveryService, SupersededRepository],
})
export class DeliveryModule {}
