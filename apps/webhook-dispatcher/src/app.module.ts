import { DynamicModule, Module } from '@nestjs/common';
import { WebhookDeliveryEntity, WebhookEntity, WebhookLogEntity, WebhookSecretEntity } from '#persistence';
import { PlatformModule } from '#platform';
import { WebhookDispatcherConfig } from './config/webhook-dispatcher.config.js';
import { DeliveryLogWriter } from './delivery/delivery-log.writer.js';
import { DeliveryConsumer } from './delivery/delivery.consumer.js';
import { DeliveryService } from './delivery/delivery.service.js';
import { HttpSender } from './delivery/http.sender.js';
import { DatabaseRetry } from './common/database-retry.js';
import { DispatcherLifecycle } from './dispatcher.lifecycle.js';
import { DeliveryRepository } from './fan-out/delivery.repository.js';
import { FanOutConsumer } from './fan-out/fan-out.consumer.js';
import { FanOutService } from './fan-out/fan-out.service.js';
import { DispatcherMetrics } from './metrics/dispatcher.metrics.js';
import { MetricsController } from './metrics/metrics.controller.js';
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
          base: config.base,
          entities: [WebhookEntity, WebhookSecretEntity, WebhookDeliveryEntity, WebhookLogEntity],
          topology: { retryDelaysMs: config.retryDelaysMs, guardDelayMs: config.guardDelayMs },
          poolSize: 20,
        }),
      ],
      controllers: [MetricsController],
      providers: [
        { provide: WebhookDispatcherConfig, useValue: config },
        DispatcherMetrics,
        DatabaseRetry,
        WebhookRepository,
        WebhookCache,
        WebhookChangesConsumer,
        DeliveryRepository,
        FanOutService,
        FanOutConsumer,
        HttpSender,
        DeliveryLogWriter,
        DeliveryService,
        DeliveryConsumer,
        DispatcherLifecycle,
      ],
    };
  }
}
