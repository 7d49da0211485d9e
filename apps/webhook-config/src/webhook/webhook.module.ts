import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SecretCipher } from '#platform';
import { WebhookConfigConfig } from '../config/webhook-config.config.js';
import { IntegrationModule } from '../integration/integration.module.js';
import { OperationalEventModule } from '../operational-event/operational-event.module.js';
import { SessionModule } from '../session/session.module.js';
import { WebhookChangePublisher } from './webhook-change.publisher.js';
import { WebhookController } from './webhook.controller.js';
import { WebhookHealthRepository } from './webhook-health.repository.js';
import { WebhookLookup } from './webhook.lookup.js';
import { WebhookMetrics } from './webhook.metrics.js';
import { WebhookOptionsController } from './webhook-options.controller.js';
import { WebhookRepository } from './webhook.repository.js';
import { WebhookSecretController } from './webhook-secret.controller.js';
import { WebhookSecretRepository } from './webhook-secret.repository.js';
import { WebhookSecretService } from './webhook-secret.service.js';
import { WebhookSenderAddressesController } from './webhook-sender-addresses.controller.js';
import { WebhookService } from './webhook.service.js';
import { WebhookSettingsValidator } from './webhook-settings.validator.js';
import { HOST_RESOLVER, systemHostResolver, WebhookUrlPolicy } from './webhook-url.policy.js';
import { WebhookHeaderEntity } from './webhook-header.entity.js';
import { WebhookHeaderService } from './webhook-header.service.js';
import { WebhookHealthEntity } from './webhook-health.entity.js';
import { WebhookSecretEntity } from './webhook-secret.entity.js';
import { WebhookEntity } from './webhook.entity.js';

/**
 * Webhook settings and secrets, and the gauge of disabled webhooks; exports WebhookLookup for the log and delivery
 * features, and the repository and change publisher for the notices (which disable a webhook that kept failing).
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([WebhookEntity, WebhookSecretEntity, WebhookHeaderEntity, WebhookHealthEntity]),
    SessionModule,
    IntegrationModule,
    OperationalEventModule,
  ],
  controllers: [WebhookController, WebhookSecretController, WebhookOptionsController, WebhookSenderAddressesController],
  providers: [
    WebhookRepository,
    WebhookSecretRepository,
    WebhookLookup,
    WebhookService,
    WebhookSecretService,
    WebhookHeaderService,
    WebhookSettingsValidator,
    WebhookUrlPolicy,
    WebhookChangePublisher,
    WebhookHealthRepository,
    WebhookMetrics,
    { provide: HOST_RESOLVER, useValue: systemHostResolver },
    {
      provide: SecretCipher,
      inject: [WebhookConfigConfig],
      useFactory: (config: WebhookConfigConfig) => new SecretCipher(config.secretEncryptionKey),
    },
  ],
  exports: [WebhookLookup, WebhookRepository, WebhookChangePublisher, SecretCipher],
})
export class WebhookModule {}
