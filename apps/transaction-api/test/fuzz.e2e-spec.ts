import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { fuzzRandomPerTarget, fuzzSeed, fuzzTimeoutMs, runOpenApiFuzz, type OpenApiDocument } from '#testing';
import { DEV_PLATFORM_TOKEN } from '../src/config/transaction-api.config.js';
import { TransactionApiHarness, transactionBody } from './harness.js';

/**
 * The fuzz tier over transaction-api's published OpenAPI document (docs/fuzzing.md): every operation, each
 * parameter and body property in turn with hostile values, with valid credentials.
 */
describe('fuzzing every documented operation (e2e over HTTP)', () => {
  let api: TransactionApiHarness;
  let merchant: { merchantId: string; integrationId: string; apiKey: string };
  let knownTransaction: string;
  let knownSubscription: string;

  beforeAll(async () => {
    api = await TransactionApiHarness.start();
    merchant = await api.merchantWithKey('Fuzz merchant');
    const tx = await api.platform<{ uuid: string }>(
      'POST',
      '/internal/transactions',
      transactionBody(merchant.merchantId, merchant.integrationId),
    );
    knownTransaction = tx.body.uuid;
    const subscription = await api.platform<{ id: string }>('POST', '/internal/subscriptions', {
      merchantId: merchant.merchantId,
      integrationId: null,
      amount: 1,
      currency: 'CHF',
      interval: 'P1M',
    });
    knownSubscription = subscription.body.id;
  });
  afterAll(async () => {
    await api.close();
  });

  it(
    'no 5xx, refusals are problems naming the field without echoing it, refused requests change nothing',
    async () => {
      const document = (await api.request<OpenApiDocument>('GET', '/docs-json')).body;
      const bodies: Record<string, () => Record<string, unknown>> = {
        'POST /internal/merchants': () => ({ name: 'Fuzz merchant' }),
        'POST /internal/merchants/{merchantId}/integrations': () => ({ name: 'Shop' }),
        'POST /internal/transactions': () => transactionBody(merchant.merchantId, merchant.integrationId),
        // The same status again: 200 and nothing changes.
        'POST /internal/transactions/{uuid}/status': () => ({ status: 'waiting' }),
        'POST /internal/subscriptions': () => ({
          merchantId: merchant.merchantId,
          integrationId: null,
          amount: 1,
          currency: 'CHF',
          interval: 'P1M',
        }),
        'POST /internal/subscriptions/{id}/events': () => ({ event: 'renewed' }),
        'POST /internal/payouts': () => ({ merchantId: merchant.merchantId, amount: 100, currency: 'CHF' }),
      };
      const pathValues: Record<string, string> = {
        merchantId: merchant.merchantId,
        uuid: knownTransaction,
        id: knownSubscription,
        version: '1.16',
      };
      const report = await runOpenApiFuzz({
        baseUrl: api.baseUrl,
        document,
        credentials: (schemes): Record<string, string> =>
          schemes.includes('platform')
            ? { authorization: `Bearer ${DEV_PLATFORM_TOKEN}` }
            : schemes.length
              ? { 'x-api-key': merchant.apiKey }
              : {},
        pathValue: (name) => pathValues[name],
        body: (operation) => bodies[operation.key]?.(),
        // The merchant's transactions as its API key reads them (the newest page and the one every status change hits).
        snapshot: () =>
          Promise.all(
            ['/v1.17/transactions?limit=100', `/v1.17/transactions/${knownTransaction}`].map(
              async (path) => (await api.merchant(merchant.apiKey, path)).body as unknown,
            ),
          ),
        seed: fuzzSeed(),
        randomPerTarget: fuzzRandomPerTarget(),
      });
      process.stdout.write(
        `transaction-api fuzz: ${report.operations.length} operations, ${report.targets} targets, ` +
          `${report.requests} requests in ${report.milliseconds} ms, statuses ${JSON.stringify(report.statuses)}\n` +
          `${JSON.stringify(report.byOperation)}\n`,
      );
      expect(report.findings).toEqual([]);
      expect(report.operations.length).toBe(Object.values(document.paths).flatMap((item) => Object.keys(item)).length);
      // Past validation too: some hostile values are valid input (an emoji name, a maximum-length reference).
      expect(report.statuses[201]).toBeGreaterThan(0);
      expect((await api.request('GET', '/health/ready')).status).toBe(200);
      // A request of every kind still works afterwards.
      const after = await api.platform('POST', '/internal/transactions', {
        ...transactionBody(merchant.merchantId, null),
        uuid: randomUUID(),
      });
      expect(after.status).toBe(201);
    },
    fuzzTimeoutMs(),
  );
});
