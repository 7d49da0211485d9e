import { DynamicModule, Module } from '@nestjs/common';
import { WEBHOOK_DISPATCHER_DATABASE } from '#persistence';
import { PlatformModule } from '#platform';
import { CommandsConsumer } from './commands/commands.consumer.js';
import { ManualDeliveryService } from './commands/manual-delivery.service.js';
import { WebhookDispatcherConfig } from './config/webhook-dispatcher.config.js';
import { DeliveryLogWriter } from './delivery/delivery-log.writer.js';
import { DeliveryWaitPump } from './delivery/delivery-wait.pump.js';
import { DeliveryWaitRepository } from './delivery/delivery-wait.repository.js';
import { WebhookRateLimiter } from './delivery/webhook-rate.limiter.js';
import { WebhookHealthMetrics } from './webhook/webhook-health.metrics.js';
import { WebhookHealthMonitor } from './webhook/webhook-health.monitor.js';
import { WebhookHealthRepository } from './webhook/webhook-health.repository.js';
import { DeliveryAttempt } from './delivery/delivery.attempt.js';
import { DeliveryConsumer } from './delivery/delivery.consumer.js';
import { DeliveryGate } from './delivery/delivery.gate.js';
import { DeliveryPublisher } from './delivery/delivery.publisher.js';
import { DeliveryService } from './delivery/delivery.service.js';
import { HttpSender } from './delivery/http.sender.js';
import { SupersededRepository } from './delivery/superseded.repository.js';
import { DatabaseRetry } from './common/database-retry.js';
import { DispatcherLifecycle } from './dispatcher.lifecycle.js';
import { DeliveryRepository } from './fan-out/delivery.repository.js';
import { FanOutConsumer } from './fan-out/fan-out.consumer.js';
import { FanOutService } from './fan-out/fan-out.service.js';
import { DispatcherMetrics } from './metrics/dispatcher.metrics.js';
import { QueueDepthMetrics } from './metrics/queue-depth.metrics.js';
import { RecoverStates } from './recover/recover-state.cache.js';
import { RecoverJob } from './recover/recover.job.js';
import { RecoverRepository } from './recover/recover.repository.js';
import { RecoverService } from './recover/recover.service.js';
import { PartitionMaintenanceJob } from './retention/partition-maintenance.job.js';
import { PartitionMaintenanceMetrics } from './retention/partition-maintenance.metrics.js';
import { PartitionMaintenance } from './retention/partition-maintenance.service.js';
import { WebhookChangesConsumer } from './webhook/webhook-changes.consumer.js';
import { WebhookCache } from './webhook/webhook.cache.js';
import { WebhookRepository } from './webhook/webhook.repository.js';

@Module({})
export class AppModule {
  static forRoot(config: WebhookDispatcherConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        PlatformModule.forRoot({
          name: 'webhook-dispatcher',
          database: WEBHOOK_DISPATCHER_DATABASE,
          base: config.base,
          entities: [],
          topology: config.topology,
          poolSize: 20,
        }),
      ],
      providers: [
        { provide: WebhookDispatcherConfig, useValue: config },
        DispatcherMetrics,
        QueueDepthMetrics,
        DatabaseRetry,
        WebhookRepository,
        WebhookCache,
        WebhookChangesConsumer,
        DeliveryRepository,
        FanOutService,
        FanOutConsumer,
        HttpSender,
        DeliveryLogWriter,
        WebhookRateLimiter,
        DeliveryWaitRepository,
        DeliveryWaitPump,
        WebhookHealthRepository,
        WebhookHealthMonitor,
        WebhookHealthMetrics,
        DeliveryPublisher,
        DeliveryAttempt,
        SupersededRepository,
        RecoverRepository,
        RecoverStates,
        RecoverService,
        RecoverJob,
        DeliveryGate,
        DeliveryService,
        DeliveryConsumer,
        ManualDeliveryService,
        CommandsConsumer,
        DispatcherLifecycle,
        PartitionMaintenanceMetrics,
        PartitionMaintenance,
        PartitionMaintenanceJob,
      ],
    };
  }
}
