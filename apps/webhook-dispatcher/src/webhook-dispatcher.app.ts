import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createHttpApp } from '#platform';
import { AppModule } from './app.module.js';
import type { WebhookDispatcherConfig } from './config/webhook-dispatcher.config.js';

/** Builds the webhook-dispatcher application (not listening yet): used by main.ts and by the e2e tests. */
export function createWebhookDispatcherApp(config: WebhookDispatcherConfig): Promise<NestFastifyApplication> {
  return createHttpApp(AppModule.forRoot(config), {
    name: 'webhook-dispatcher',
    // No feature of the dispatcher throws a DomainException: its HTTP is health and metrics only.
    problems: [],
    logLevel: config.base.logLevel,
    logFormat: config.base.logFormat,
    otlpEndpoint: config.base.otlpEndpoint,
  });
}
