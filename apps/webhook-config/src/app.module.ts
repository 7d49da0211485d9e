import { DynamicModule, Module } from '@nestjs/common';
import { WEBHOOK_CONFIG_DATABASE } from '#persistence';
import { AppConfigModule, PlatformModule, PlatformTokenSource } from '#platform';
import { AuthModule } from './auth/auth.module.js';
import { CliSessionModule } from './cli-session/cli-session.module.js';
import { EventCatalogModule } from './event-catalog/event-catalog.module.js';
import { BackendUserEntity } from './auth/backend-user.entity.js';
import { MerchantRef } from './auth/merchant-ref.entity.js';
import { WebhookConfigConfig } from './config/webhook-config.config.js';
import { IntegrationRef } from './integration/integration-ref.entity.js';
import { IntegrationModule } from './integration/integration.module.js';
import { BackendSessionEntity } from './session/backend-session.entity.js';
import { SessionModule } from './session/session.module.js';
import { DeliveryRef } from './webhook-delivery/delivery-ref.entity.js';
import { WebhookDeliveryModule } from './webhook-delivery/webhook-delivery.module.js';
import { RecoverRef } from './webhook-recover/recover-ref.entity.js';
import { WebhookRecoverModule } from './webhook-recover/webhook-recover.module.js';
import { WebhookLogEntity } from './webhook-log/webhook-log.entity.js';
import { WebhookLogModule } from './webhook-log/webhook-log.module.js';
import { NoticeModule } from './notice/notice.module.js';
import { WebhookHealthEntity } from './webhook/webhook-health.entity.js';
import { WebhookHeaderEntity } from './webhook/webhook-header.entity.js';
import { WebhookSecretEntity } from './webhook/webhook-secret.entity.js';
import { WebhookEntity } from './webhook/webhook.entity.js';
import { WebhookModule } from './webhook/webhook.module.js';

@Module({})
export class AppModule {
  static forRoot(config: WebhookConfigConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        AppConfigModule.forRoot(config, [WebhookConfigConfig, PlatformTokenSource]),
        PlatformModule.forRoot({
          name: 'webhook-config',
          database: WEBHOOK_CONFIG_DATABASE,
          base: config.base,
          entities: [
            MerchantRef,
            IntegrationRef,
            WebhookEntity,
            WebhookSecretEntity,
            WebhookHeaderEntity,
            WebhookLogEntity,
            WebhookHealthEntity,
            DeliveryRef,
            RecoverRef,
            BackendUserEntity,
            BackendSessionEntity,
          ],
          // With DATABASE_READ_URL the webhook log's pages are read from the replica (WebhookLogService).
          replicaEntities: [WebhookLogEntity],
        }),
        AuthModule,
        SessionModule,
        IntegrationModule,
        WebhookModule,
        WebhookLogModule,
        NoticeModule,
        WebhookDeliveryModule,
        WebhookRecoverModule,
        EventCatalogModule,
        CliSessionModule,
      ],
    };
  }
}
