import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { Pool } from 'undici';
import { sql } from './db.js';
import { TransactionApiHarness } from './harness.js';

/**
 * Thousands of random bodies, paths and queries to every endpoint over real HTTP: nothing may answer 5xx, every
 * error is an RFC 9457 problem, and nothing is stored for a refused request.
 */
describe('fuzzing every endpoint (e2e over HTTP)', () => {
  let api: TransactionApiHarness;
  let pool: Pool;
  let merchant: { merchantId: string; integrationId: string; apiKey: string };
  let knownTransaction: string;
  let knownSubscription: string;
  let created = 0;

  beforeAll(async () => {
    api = await TransactionApiHarness.start();
    merchant = await api.merchantWithKey('Fuzz merchant');
    pool = new Pool(api.baseUrl, { connections: 4 });
    const tx = await api.platform<{ uuid: string }>('POST', '/internal/transactions', {
      merchantId: merchant.merchantId,
      integrationId: null,
      status: 'waiting',
      psp: 'p',
      type: 'pos',
      paymentMethod: 'visa',
      amount: 1,
      currency: 'CHF',
    });
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
    await pool.close();
    await api.close();
  });

  const junk = fc.oneof(
    fc.anything(),
    fc.string(),
    fc.string({ unit: 'binary', maxLength: 30 }),
    fc.integer(),
    fc.double(),
    fc.constantFrom(
      null,
      true,
      false,
      '',
      ' ',
      -1,
      0,
      1e308,
      Number.MAX_SAFE_INTEGER + 2,
      '1990',
      [],
      {},
      '\u0000',
      '__proto__',
      'constructor',
      'ä'.repeat(300),
    ),
  );
  const maybe = <T>(valid: fc.Arbitrary<T>) =>
    fc.oneof({ weight: 3, arbitrary: valid }, { weight: 1, arbitrary: junk });
  const uuidish = fc.oneof(
    fc.uuid(),
    fc.constant('00000000-0000-0000-0000-000000000000'),
    fc.string({ maxLength: 40 }),
  );

  const ids = () => fc.constantFrom(merchant.merchantId, randomUUID(), merchant.merchantId.toUpperCase());
  const transactionBody = () =>
    fc.record(
      {
        merchantId: maybe(ids()),
        integrationId: maybe(fc.constantFrom(null, merchant.integrationId, randomUUID())),
        uuid: maybe(fc.constantFrom(knownTransaction, randomUUID())),
        referenceId: maybe(
          fc.oneof(
            fc.string({ minLength: 1, maxLength: 300 }),
            fc.string({ unit: 'binary', minLength: 1, maxLength: 20 }),
            fc.constant(null),
          ),
        ),
        status: maybe(fc.constantFrom('waiting', 'confirmed', 'refunded', 'paid', 'WAITING')),
        psp: maybe(fc.oneof(fc.string({ maxLength: 120 }), fc.string({ unit: 'binary', maxLength: 20 }))),
        type: maybe(fc.constantFrom('e-commerce', 'pos', 'tap-to-pay', 'online')),
        paymentMethod: maybe(fc.constantFrom('visa', 'mastercard', 'twint', 'bank-transfer', 'Cash', 'bank_transfer')),
        amount: maybe(fc.oneof(fc.integer({ min: -10, max: 200_000_000_000 }), fc.double())),
        currency: maybe(fc.constantFrom('CHF', 'EUR', 'chf', 'ZZZ', 'CH', 'EURO')),
        authentication: maybe(
          fc.oneof(
            fc.constant(null),
            fc.dictionary(
              fc.constantFrom('eci', 'source', 'version', 'flow', 'cavv', 'dsTransactionId', 'x'),
              fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null), fc.object()),
            ),
          ),
        ),
        createdAt: maybe(
          fc.oneof(
            fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
            fc.string(),
          ),
        ),
        extra: junk,
      },
      { requiredKeys: [] },
    );

  type Call = {
    method: string;
    path: string;
    body?: string;
    contentType?: string;
    auth: 'platform' | 'merchant' | 'none';
  };
  const bodyOf = (value: fc.Arbitrary<unknown>) =>
    fc.oneof(
      { weight: 6, arbitrary: value.map((v) => JSON.stringify(v) ?? 'null') },
      { weight: 1, arbitrary: fc.string() },
      { weight: 1, arbitrary: value.map((v) => (JSON.stringify(v) ?? '').slice(0, -1)) },
      { weight: 1, arbitrary: junk.map((v) => JSON.stringify(v) ?? '') },
    );
  const contentType = fc.oneof(
    { weight: 8, arbitrary: fc.constant('application/json') },
    { weight: 1, arbitrary: fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', '') },
  );

  const calls = (): fc.Arbitrary<Call> => {
    const post = (path: fc.Arbitrary<string>, body: fc.Arbitrary<unknown>): fc.Arbitrary<Call> =>
      fc.record({
        method: fc.constant('POST'),
        path,
        body: bodyOf(body),
        contentType,
        auth: fc.constantFrom<'platform' | 'none'>('platform', 'platform', 'platform', 'none'),
      });
    const version = fc.oneof(fc.constantFrom('1.0', '1.9', '1.16', '1.17'), fc.string({ maxLength: 6 }));
    const query = fc
      .array(
        fc.tuple(
          fc.constantFrom(
            'limit',
            'cursor',
            'status',
            'referenceId',
            'psp',
            'type',
            'createdFrom',
            'createdTo',
            'updatedFrom',
            'updatedTo',
            'order',
            'junk',
            'limit[]',
            '__proto__',
          ),
          fc.oneof(
            fc.string({ maxLength: 40 }),
            fc.string({ unit: 'binary', maxLength: 10 }),
            fc.integer({ min: -5, max: 200 }).map(String),
            fc.constantFrom('eyJhIjoxfQ', '2026-01-01T00:00:00Z', 'confirmed', 'pos', 'updatedAt', '-createdAt', ''),
          ),
        ),
        { maxLength: 4 },
      )
      .map((pairs) =>
        pairs.length ? '?' + pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&') : '',
      );
    return fc.oneof(
      post(fc.constant('/internal/transactions'), transactionBody()),
      post(
        fc.constantFrom(
          `/internal/transactions/${knownTransaction}/status`,
          `/internal/transactions/${randomUUID()}/status`,
        ),
        fc.record(
          { status: maybe(fc.constantFrom('confirmed', 'authorized', 'refunded', 'x')), extra: junk },
          { requiredKeys: [] },
        ),
      ),
      post(
        uuidish.map((id) => `/internal/transactions/${encodeURIComponent(id)}/status`),
        fc.record({ status: fc.constant('confirmed') }),
      ),
      post(
        fc.constant('/internal/merchants'),
        fc.record({ name: maybe(fc.string({ unit: 'binary', maxLength: 250 })), extra: junk }, { requiredKeys: [] }),
      ),
      post(
        fc
          .oneof(fc.constant(merchant.merchantId), uuidish)
          .map((id) => `/internal/merchants/${encodeURIComponent(id)}/integrations`),
        fc.record({ name: maybe(fc.string({ maxLength: 250 })) }, { requiredKeys: [] }),
      ),
      post(
        fc.constant('/internal/subscriptions'),
        fc.record(
          {
            merchantId: maybe(ids()),
            integrationId: maybe(fc.constant(null)),
            referenceId: maybe(fc.string()),
            amount: maybe(fc.integer()),
            currency: maybe(fc.constantFrom('CHF', 'x')),
            interval: maybe(fc.constantFrom('P1M', 'monthly', 'P', 'P1000000D')),
            extra: junk,
          },
          { requiredKeys: [] },
        ),
      ),
      post(
        fc
          .oneof(fc.constant(knownSubscription), uuidish)
          .map((id) => `/internal/subscriptions/${encodeURIComponent(id)}/events`),
        fc.record(
          { event: maybe(fc.constantFrom('renewed', 'payment_failed', 'cancelled', 'ended', 'x')) },
          { requiredKeys: [] },
        ),
      ),
      post(
        fc.constant('/internal/payouts'),
        fc.record(
          {
            merchantId: maybe(ids()),
            amount: maybe(fc.integer()),
            currency: maybe(fc.constantFrom('CHF', 'usd')),
            extra: junk,
          },
          { requiredKeys: [] },
        ),
      ),
      fc.record({
        method: fc.constant('GET'),
        path: fc.tuple(version, query).map(([v, q]) => `/v${encodeURIComponent(v)}/transactions${q}`),
        auth: fc.constantFrom<'merchant' | 'none'>('merchant', 'merchant', 'none'),
      }),
      fc.record({
        method: fc.constant('GET'),
        path: fc
          .tuple(version, fc.oneof(fc.constant(knownTransaction), uuidish))
          .map(([v, id]) => `/v${encodeURIComponent(v)}/transactions/${encodeURIComponent(id)}`),
        auth: fc.constantFrom<'merchant' | 'none'>('merchant', 'merchant', 'none'),
      }),
    );
  };

  it('never answers 5xx; every error is a problem naming a status; refused requests store nothing', async () => {
    const before = Number(
      (
        await sql<{ n: string }>('SELECT count(*) AS n FROM transaction WHERE merchant_id = $1', [merchant.merchantId])
      )[0].n,
    );
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(calls(), async (call) => {
        const headers: Record<string, string> = {};
        if (call.auth === 'platform') headers.authorization = 'Bearer development-platform-token';
        if (call.auth === 'merchant') headers['x-api-key'] = merchant.apiKey;
        if (call.contentType) headers['content-type'] = call.contentType;
        const response = await pool.request({
          method: call.method as 'GET',
          path: call.path,
          headers,
          body: call.body,
        });
        const text = await response.body.text();
        statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
        if (call.path === '/internal/transactions' && response.statusCode === 201) created += 1;
        expect([call.method, call.path, response.statusCode < 500]).toEqual([call.method, call.path, true]);
        if (response.statusCode >= 400) {
          expect(String(response.headers['content-type'])).toContain('application/problem+json');
          const problem = JSON.parse(text) as { status: number; type: string; title: string; detail: string };
          expect(problem).toMatchObject({
            status: response.statusCode,
            type: expect.any(String),
            title: expect.any(String),
            detail: expect.any(String),
          });
        }
      }),
      { numRuns: 3_000 },
    );
    const after = Number(
      (
        await sql<{ n: string }>('SELECT count(*) AS n FROM transaction WHERE merchant_id = $1', [merchant.merchantId])
      )[0].n,
    );
    expect(after - before).toBe(created);
    // The fuzzing reached past validation too.
    expect(statuses.get(400)).toBeGreaterThan(100);
    expect([...statuses.keys()].some((status) => status < 300)).toBe(true);
  }, 120_000);
});
