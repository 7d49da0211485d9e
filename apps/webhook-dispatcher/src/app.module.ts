import { DynamicModule, Module } from '@nestjs/common';
import { WebhookEntity, WebhookSecretEntity, WebhookDeliveryEntity, WebhookLogEntity } from '#persistence';
import { PlatformModule } from '#platform';
import { WebhookDispatcherConfig } from './config/webhook-dispatcher.config.js';

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
        retryDelaysMs: config.retryDelaysMs,
        }),
      ],
      providers: [{ provide: WebhookDispatcherConfig, useValue: config }],
    };
  }
}
