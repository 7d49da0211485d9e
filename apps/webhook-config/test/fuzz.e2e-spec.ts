import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { fuzzRandomPerTarget, fuzzSeed, fuzzTimeoutMs, runOpenApiFuzz, type OpenApiDocument } from '#testing';
import { seedDelivery } from './support/log-seed.js';
import {
  call,
  newMerchantSession,
  PASSWORD,
  platformHeaders,
  PUBLIC_URL,
  startApp,
  type Client,
  type RunningApp,
} from './support/harness.js';

/** The fuzzer's client address (through the trusted loopback proxy): its failed sign-ins are counted there. */
const FUZZ_ADDRESS = '198.51.100.77';

/** The webhook the routes under /api/webhooks/{id} work on, as it is created and restored after each change. */
const TARGET = {
  name: 'Fuzz target',
  url: PUBLIC_URL,
  events: ['transaction'],
  enabled: true,
  contentType: 'json',
  version: '2026-08-20',
  retryOnError: true,
  integrationId: null,
  maxPerSecond: null,
  skipSupersededRepeats: true,
};

/**
 * The fuzz tier over webhook-config's published OpenAPI document (docs/fuzzing.md): every operation, each
 * parameter and body property in turn with hostile values, signed in (cookie and CSRF token) or with the platform
 * token as the operation asks.
 */
describe('fuzzing every documented operation (e2e over HTTP)', () => {
  let running: RunningApp;
  let client: Client;
  let email: string;
  let webhookId: string;
  let logId: string;

  beforeAll(async () => {
    running = await startApp({ TRUST_PROXY: 'loopback' });
    client = await newMerchantSession(running);
    email = (await client.get<{ email: string }>('/api/session')).body.email;
    const webhook = await client.post<{ id: string; merchantId: string; url: string }>('/api/webhooks', TARGET);
    webhookId = webhook.body.id;
    const seeded = await seedDelivery(running.db, { id: webhookId, merchantId: client.merchantId, url: PUBLIC_URL }, [
      { status: 500, createdAt: new Date(Date.now() - 60_000) },
    ]);
    logId = seeded.logIds[0];
  });
  afterAll(async () => {
    await running.close();
  });

  it(
    'no 5xx, refusals are problems naming the field without echoing it, refused requests change nothing',
    async () => {
      const document = (await call<OpenApiDocument>(running.baseUrl, 'GET', '/api/docs-json')).body;
      const bodies: Record<string, () => Record<string, unknown>> = {
        'POST /internal/merchants/{merchantId}/users': () => ({
          email: `fuzz-${randomUUID().slice(0, 8)}@shop.example`,
          password: PASSWORD,
        }),
        'POST /api/session': () => ({ email, password: PASSWORD }),
        'POST /api/webhooks': () => ({ name: 'Fuzz', url: PUBLIC_URL, events: ['payout'] }),
        'PATCH /api/webhooks/{id}': () => ({ name: 'Fuzz target' }),
        'POST /api/webhooks/{id}/recover': () => ({ since: new Date(Date.now() - 3_600_000).toISOString() }),
      };
      const pathValues: Record<string, string> = { merchantId: client.merchantId, id: webhookId, logId };
      const report = await runOpenApiFuzz({
        baseUrl: running.baseUrl,
        document,
        headers: { 'x-forwarded-for': FUZZ_ADDRESS },
        credentials: (schemes) => ({
          ...(schemes.includes('platform') ? platformHeaders : {}),
          ...(schemes.includes('session') ? { cookie: client.cookie } : {}),
          ...(schemes.includes('csrf') ? { 'x-csrf-token': client.csrfToken } : {}),
        }),
        pathValue: (name) => pathValues[name],
        // A PATCH that got through (an emoji name, enabled false): back to the target's settings, so that test, resend
        // and recover still find the webhook enabled.
        afterSuccess: async (operation) => {
          if (operation.key === 'PATCH /api/webhooks/{id}') await client.patch(`/api/webhooks/${webhookId}`, TARGET);
        },
        body: (operation) => bodies[operation.key]?.(),
        // Through the API: the merchant's webhooks (the one under test among them), and what the operation touches
        // besides: the secret, the log.
        snapshot: (operation) =>
          Promise.all(
            [
              '/api/webhooks',
              ...(operation.path.includes('/secret') ? [`/api/webhooks/${webhookId}/secret`] : []),
              ...(/\/(test|resend|recover)$/.test(operation.path) ? [`/api/webhooks/${webhookId}/logs?limit=100`] : []),
            ].map(async (path) => (await client.get(path)).body as unknown),
          ),
        seed: fuzzSeed(),
        randomPerTarget: fuzzRandomPerTarget(),
      });
      process.stdout.write(
        `webhook-config fuzz: ${report.operations.length} operations, ${report.targets} targets, ` +
          `${report.requests} requests in ${report.milliseconds} ms, statuses ${JSON.stringify(report.statuses)}\n` +
          `${JSON.stringify(report.byOperation)}\n`,
      );
      expect(report.findings).toEqual([]);
      expect(report.operations.length).toBe(Object.values(document.paths).flatMap((item) => Object.keys(item)).length);
      expect(report.statuses[200]).toBeGreaterThan(0);
      expect((await call(running.baseUrl, 'GET', '/health/ready')).status).toBe(200);
      // Still signed in, and the webhook under test still there.
      expect((await client.get(`/api/webhooks/${webhookId}`)).status).toBe(200);
    },
    fuzzTimeoutMs(),
  );
});
