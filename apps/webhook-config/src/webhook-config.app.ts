import fastifyCookie from '@fastify/cookie';
import { Logger } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createHttpApp } from '#platform';
import { AppModule } from './app.module.js';
import { WEBHOOK_CONFIG_PROBLEMS } from './app.problems.js';
import type { WebhookConfigConfig } from './config/webhook-config.config.js';
import { addSecurityHeaders } from './http/security-headers.js';
import { SESSION_POLICY } from './session/session.policy.js';
import { mountUi } from './ui/ui.assets.js';

const DESCRIPTION = `
The merchant backend's REST API (\`/api/…\`, used by its UI) and the platform's internal API for backend logins
(\`/internal/…\`, platform token).

**Authentication.** Sign in with \`POST /api/session\`: it sets the session cookie \`wc_session\` (HttpOnly,
SameSite=Strict) and answers the session's CSRF token. Every other \`/api\` route needs the cookie (401 without a
live session); every POST, PATCH and DELETE also needs the header \`X-CSRF-Token\` (403 when missing or wrong).
Platform API: \`Authorization: Bearer $PLATFORM_TOKEN\` (401 otherwise). The \`payments\` command line's routes
(\`/api/cli/…\`) take the merchant's API key instead (\`Authorization: Bearer pk_…\`), no cookie and no CSRF token. \`GET /webhook-sender-addresses\` is public.

**Errors.** Every error is an RFC 9457 \`application/problem+json\` body \`{type, title, status, detail, errors?}\`;
\`errors\` lists \`{field, message}\` for each invalid field. Bad input is a 4xx naming the field and changes
nothing. Request bodies are JSON only (415 otherwise). A malformed id answers 404 like an unknown one.
`.trim();

const SESSION = 'The session cookie set by `POST /api/session`.';
const API_KEY = "The merchant's API key of one integration (the `payments` command line's routes, `/api/cli/…`).";
const CSRF = "The session's CSRF token (from `POST /api/session` or `GET /api/session`): on POST, PATCH, DELETE.";

/** Builds the webhook-config application (not listening yet): used by main.ts and by the e2e tests. */
export async function createWebhookConfigApp(config: WebhookConfigConfig): Promise<NestFastifyApplication> {
  const app = await createHttpApp(AppModule.forRoot(config), {
    name: 'webhook-config',
    problems: WEBHOOK_CONFIG_PROBLEMS,
    logLevel: config.base.logLevel,
    logFormat: config.base.logFormat,
    trustProxy: config.trustProxy,
    otlpEndpoint: config.base.otlpEndpoint,
    shutdownDrainMs: config.base.shutdownDrainMs,
    openApi: {
      path: 'api/docs',
      title: 'webhook-config',
      description: DESCRIPTION,
      version: '1.0',
      configure: (builder) =>
        builder
          .addTag('session', 'Sign in and out of the merchant backend.')
          .addTag(
            'webhooks',
            "The signed-in merchant's webhooks: settings, signing secret, delivery log, test, resend.",
          )
          .addTag('integrations', "The signed-in merchant's integrations.")
          .addTag('events', 'The event catalog: every kind of event, its payload versions, schemas and examples.')
          .addTag('cli', 'The `payments` command line (listen, trigger) and its sessions in the backend.')
          .addTag('platform', 'Platform (internal) API, for the processing core.')
          .addCookieAuth(SESSION_POLICY.cookieName, { type: 'apiKey', in: 'cookie', description: SESSION }, 'session')
          .addApiKey({ type: 'apiKey', in: 'header', name: 'X-CSRF-Token', description: CSRF }, 'csrf')
          .addBearerAuth(
            { type: 'http', scheme: 'bearer', bearerFormat: 'opaque token', description: 'PLATFORM_TOKEN' },
            'platform',
          )
          .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'pk_…', description: API_KEY }, 'apiKey'),
    },
  });
  await app.register(fastifyCookie);
  const fastify = app.getHttpAdapter().getInstance();
  addSecurityHeaders(fastify);
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
