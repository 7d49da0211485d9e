import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  API_VERSIONS,
  LATEST_API_VERSION,
  LATEST_WEBHOOK_VERSION,
  PLATFORM_EVENT_TYPES,
  THREE_D_SECURE_SINCE_API_VERSION,
} from '#domain';
import { createHttpApp } from '#platform';
import { AppModule } from './app.module.js';
import { TRANSACTION_API_PROBLEMS } from './app.problems.js';
import { webhooksDoc } from './common/webhooks.doc.js';
import type { TransactionApiConfig } from './config/transaction-api.config.js';

/** Largest accepted request body: a transaction is well under 2 KiB. */
export const BODY_LIMIT_BYTES = 64 * 1024;

// The versions and event types, from #domain (the lines break where they did when it named the versions).
const [OLDEST, LATEST, WITH_3DS] = [API_VERSIONS[0], LATEST_API_VERSION, THREE_D_SECURE_SINCE_API_VERSION];
const DESCRIPTION = `
Merchant read API (\`/v{version}/…\`, API key) and the platform's internal API (\`/internal/…\`, platform token).

**Authentication.** Merchant API: \`Authorization: Bearer <apiKey>\` or \`X-API-KEY: <apiKey>\`; a key sees every
transaction of its merchant and nothing of any other (another merchant's uuid answers 404 like an unknown one).
Platform API: \`Authorization: Bearer $PLATFORM_TOKEN\`. Missing or wrong credentials answer 401.

**Versions.** \`version\` is ${OLDEST} … ${LATEST}. Before ${WITH_3DS} the transaction object has no \`3dsecure\` key; from ${WITH_3DS} it
always has it (an object or null). Nothing else differs. Any other version answers 404. This document lists ${LATEST}
under paths of its own (\`/v${LATEST}/…\`), so that a client generated from it types those objects with \`3dsecure\`.

**Errors.** Every error is an RFC 9457 \`application/problem+json\` body \`{type, title, status, detail, errors?}\`;
\`errors\` lists \`{field, message}\` for each invalid field. Bad input (malformed JSON, a wrong type, an unknown
field or query parameter, an unknown status, a bad currency or amount, a bad cursor, a body over 64 KiB, a body
that is not \`application/json\`) is a 4xx naming the field and changes nothing. What is refused before any route (a
malformed request or path, a path segment over 100 characters, a request line and headers over 16 KiB) is a problem
too, quoting nothing that was sent. Problem types: urn:problem:validation (400), urn:problem:bad-request (400),
urn:problem:unauthorized (401), urn:problem:not-found (404), urn:problem:unknown-api-version (404),
urn:problem:conflict (409), urn:problem:status-transition (409), urn:problem:subscription-event (409),
urn:problem:payload-too-large (413), urn:problem:uri-too-long (414), urn:problem:unsupported-media-type (415),
urn:problem:rate-limited (429, with Retry-After), urn:problem:request-header-fields-too-large (431),
urn:problem:unavailable (503, with Retry-After: the database is away, or the service is shutting down).

**Rate limit.** The merchant API accepts \`API_RATE_LIMIT\` requests per second per API key (100 by default), over a
sliding one-second window and summed over every instance of the service; more answer 429
\`urn:problem:rate-limited\` with \`Retry-After\` (seconds). A client address sending as many wrong keys per second is
answered 429 too (for at most a second) before its keys are looked up.

**Events.** Every change is published to the \`payments.events\` exchange through a transactional outbox
(routing key = event type): ${PLATFORM_EVENT_TYPES.join(', ')}.

**Webhooks.** What merchants' webhooks receive is under \`webhooks\`: one entry per event type and payload version
(\`transaction-${LATEST_WEBHOOK_VERSION}\`, …) with the payload's JSON Schema and an example, as JSON and as PHP-Post, and the
signature headers.
`.trim();

/** Builds the transaction-api application (not listening yet): used by main.ts and by the e2e tests. */
export async function createTransactionApiApp(config: TransactionApiConfig): Promise<NestFastifyApplication> {
  const app = await createHttpApp(AppModule.forRoot(config), {
    name: 'transaction-api',
    problems: TRANSACTION_API_PROBLEMS,
    logLevel: config.base.logLevel,
    logFormat: config.base.logFormat,
    bodyLimit: BODY_LIMIT_BYTES,
    trustProxy: config.trustProxy,
    otlpEndpoint: config.base.otlpEndpoint,
    shutdownDrainMs: config.base.shutdownDrainMs,
    openApi: {
      title: 'transaction-api',
      description: DESCRIPTION,
      version: LATEST_API_VERSION,
      configure: (builder) =>
        builder
          // bearerFormat: Nest's default says JWT; neither credential is one.
          .addBearerAuth(
            { type: 'http', scheme: 'bearer', bearerFormat: 'API key', description: 'Merchant API key (pk_…)' },
            'apiKey',
          )
          .addApiKey(
            { type: 'apiKey', in: 'header', name: 'X-API-KEY', description: 'Merchant API key (pk_…)' },
            'apiKeyHeader',
          )
          .addBearerAuth(
            { type: 'http', scheme: 'bearer', bearerFormat: 'opaque token', description: 'PLATFORM_TOKEN' },
            'platform',
          ),
      // A latest-version object would otherwise also match the older versions' schema of the same `oneOf`.
      closedSchemas: ['TransactionV1Doc', 'TransactionV117Doc', 'ThreeDSecureDoc'],
      webhooks: webhooksDoc(),
    },
  });
  const fastify = app.getHttpAdapter().getInstance();
  // Payment data and API keys: no browser or shared cache may keep an answer (a route may still set its own).
  fastify.addHook('onRequest', (_request, reply, done) => {
    reply.header('cache-control', 'no-store');
    done();
  });
  return app;
}
