import { DynamicModule, Module } from '@nestjs/common';
import { MerchantEntity, IntegrationEntity, WebhookEntity, WebhookSecretEntity, WebhookDeliveryEntity, WebhookLogEntity } from '#persistence';
import { PlatformModule } from '#platform';
import { WebhookConfigConfig } from './config/webhook-config.config.js';

@Module({})
export class AppModule {
  static forRoot(config: WebhookConfigConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        PlatformModule.forRoot({
          name: 'webhook-config',
          base: config.base,
          entities: [MerchantEntity, IntegrationEntity, WebhookEntity, WebhookSecretEntity, WebhookDeliveryEntity, WebhookLogEntity],
        }),
      ],
      providers: [{ provide: WebhookConfigConfig, useValue: config }],
    };
  }
}
