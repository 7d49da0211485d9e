import { DynamicModule, Module } from '@nestjs/common';
import { WEBHOOK_DISPATCHER_DATABASE } from '#persistence';
import { AppConfigModule, PlatformModule } from '#platform';
import { CommandsModule } from './commands/commands.module.js';
import { CommonModule } from './common/common.module.js';
import { WebhookDispatcherConfig } from './config/webhook-dispatcher.config.js';
import { DeliveryModule } from './delivery/delivery.module.js';
import { DispatcherLifecycle } from './dispatcher.lifecycle.js';
import { FanOutModule } from './fan-out/fan-out.module.js';
import { MetricsModule } from './metrics/metrics.module.js';
import { RecoverModule } from './recover/recover.module.js';
import { RetentionModule } from './retention/retention.module.js';
import { WebhookChangesModule } from './webhook-changes/webhook-changes.module.js';
import { WebhookHealthModule } from './webhook-health/webhook-health.module.js';
import { WebhookModule } from './webhook/webhook.module.js';

/**
 * The dispatcher's feature modules (docs/webhook-dispatcher.md, Modules), each owning the tables it writes, and the
 * graceful shutdown, which needs the delivery service and the database retry.
 */
@Module({})
export class AppModule {
  static forRoot(config: WebhookDispatcherConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        AppConfigModule.forRoot(config, [WebhookDispatcherConfig]),
        PlatformModule.forRoot({
          name: 'webhook-dispatcher',
          database: WEBHOOK_DISPATCHER_DATABASE,
          base: config.base,
          entities: [],
          topology: config.topology,
          poolSize: 20,
        }),
        CommonModule,
        MetricsModule,
        WebhookModule,
        WebhookHealthModule,
        RecoverModule,
        DeliveryModule,
        FanOutModule,
        CommandsModule,
        WebhookChangesModule,
        RetentionModule,
      ],
      providers: [DispatcherLifecycle],
    };
  }
}
