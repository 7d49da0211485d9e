import { DynamicModule, Global, Module } from '@nestjs/common';
import {
  IntegrationEntity,
  MerchantEntity,
  WebhookDeliveryEntity,
  WebhookEntity,
  WebhookLogEntity,
  WebhookSecretEntity,
} from '#persistence';
import { PlatformModule } from '#platform';
import { AuthModule } from './auth/auth.module.js';
import { BackendUserEntity } from './auth/backend-user.entity.js';
import { WebhookConfigConfig } from './config/webhook-config.config.js';
import { IntegrationModule } from './integration/integration.module.js';
import { BackendSessionEntity } from './session/backend-session.entity.js';
import { SessionModule } from './session/session.module.js';
import { WebhookDeliveryModule } from './webhook-delivery/webhook-delivery.module.js';
import { WebhookLogModule } from './webhook-log/webhook-log.module.js';
import { WebhookModule } from './webhook/webhook.module.js';

/** Makes the app's configuration injectable everywhere. */
@Global()
@Module({})
class ConfigModule {
  static forRoot(config: WebhookConfigConfig): DynamicModule {
    return {
      module: ConfigModule,
      providers: [{ provide: WebhookConfigConfig, useValue: config }],
      exports: [WebhookConfigConfig],
    };
  }
}

@Module({})
export class AppModule {
  static forRoot(config: WebhookConfigConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        PlatformModule.forRoot({
          name: 'webhook-config',
          base: config.base,
          entities: [
            MerchantEntity,
            IntegrationEntity,
            WebhookEntity,
            WebhookSecretEntity,
            WebhookDeliveryEntity,
            WebhookLogEntity,
            BackendUserEntity,
            BackendSessionEntity,
          ],
        }),
        AuthModule,
        SessionModule,
        IntegrationModule,
        WebhookModule,
        WebhookLogModule,
        WebhookDeliveryModule,
      ],
    };
  }
}
