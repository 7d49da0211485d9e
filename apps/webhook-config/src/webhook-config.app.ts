import fastifyCookie from '@fastify/cookie';
import { Logger } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createHttpApp } from '#platform';
import { AppModule } from './app.module.js';
import type { WebhookConfigConfig } from './config/webhook-config.config.js';
import { acceptOnlyJsonBodies } from './http/json-only.js';
import { addSecurityHeaders } from './http/security-headers.js';
import { mountUi } from './ui/ui.assets.js';

/** Builds the webhook-config application (not listening yet): used by main.ts and by the e2e tests. */
export async function createWebhookConfigApp(config: WebhookConfigConfig): Promise<NestFastifyApplication> {
  const app = await createHttpApp(AppModule.forRoot(config), {
    name: 'webhook-config',
    logLevel: config.base.logLevel,
    trustProxy: config.trustProxy,
  });
  await app.register(fastifyCookie);
  const fastify = app.getHttpAdapter().getInstance();
  addSecurityHeaders(fastify);
  acceptOnlyJsonBodies(fastify);
  await mountUi(app);
  if (config.allowPrivateTargets) warnPrivateTargets();
  return app;
}

function warnPrivateTargets(): void {
  const logger = new Logger('webhook-config');
  logger.warn('**************************************************************************************');
  logger.warn('WEBHOOK_ALLOW_PRIVATE_TARGETS=true: webhook URLs may point to loopback, private and');
  logger.warn('link-local addresses (including cloud metadata). Use this in development and tests only.');
  logger.warn('**************************************************************************************');
}
