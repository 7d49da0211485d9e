import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createHttpApp } from '#platform';
import { AppModule } from './app.module.js';
import type { WebhookConfigConfig } from './config/webhook-config.config.js';

/** Builds the webhook-config application (not listening yet): used by main.ts and by the e2e tests. */
export function createWebhookConfigApp(config: WebhookConfigConfig): Promise<NestFastifyApplication> {
  return createHttpApp(AppModule.forRoot(config), { name: 'webhook-config', logLevel: config.base.logLevel });
}
