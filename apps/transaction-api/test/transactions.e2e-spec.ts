import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { API_VERSIONS } from '#domain';
import { eventsOf, sql } from './db.js';
import { TransactionApiHarness, transactionBody } from './harness.js';

const BASE_KEYS = [
  'uuid',
  'referenceId',
  'status',
  'psp',
  'type',
  'paymentMethod',
  'amount',
  'currency',
  'integrationId',
  'createdAt',
  'updatedAt',
];
const AUTH = {
  eci: '5',
  source: '3ds',
  version: '2.2',
  flow: 'Challenge',
  cavv: 'AJkBByEyYgAAAAAAAAAAAAAAAAA=',
  dsTransactionId: randomUUID(),
};

describe('transactions (e2e over HTTP)', () => {
  let api: TransactionApiHarness;
  let a: { merchantId: string; integrationId: string; apiKey: string };
  let b: { merchantId: string; integrationId: string; apiKey: string };

  beforeAll(async () => {
    api = await TransactionApiHarness.start();
    a = await api.merchantWithKey('Merchant A');
    b = await api.merchantWithKey('Merchant B');
  });
  afterAll(async () => {
    await api.close();
  });

  const record = (merchant: typeof a, extra: Record<string, unknown> = {}) =>
    api.platform<Record<string, unknown>>(
      'POST',
      '/internal/transactions',
      transactionBody(merchant.merchantId, merchant.integrationId, extra),
    );

  describe('recording (POST /internal/transactions)', () => {
    it('answers 201 with the 1.17 object, 3dsecure resolved, and emits transaction.created', async () => {
      const created = await record(a, { authentication: AUTH });
      expect(created.status).toBe(201);
      expect(Object.keys(created.body)).toEqual([...BASE_KEYS, '3dsecure']);
      expect(created.body).toMatchObject({
        status: 'waiting',
        amount: 1990,
        currency: 'CHF',
        integrationId: a.integrationId,
      });
      expect(created.body['3dsecure']).toEqual({ eci: '05', source: '3ds', version: '2.2.0', flow: 'challenge' });
      expect(await eventsOf(created.body.uuid as string)).toEqual(['transaction.created']);
    });

    it('gives 3dsecure null for POS, wallets and when nothing was collected', async () => {
      for (const extra of [
        { type: 'pos', authentication: AUTH },
        { paymentMethod: 'twint', authentication: AUTH },
        { authentication: null },
        {},
      ]) {
        const created = await record(a, extra);
        expect(created.status).toBe(201);
        expect(created.body['3dsecure']).toBeNull();
      }
    });

    it('records any payment method slug; a method that is not a card network is non-card', async () => {
      for (const paymentMethod of ['bank-transfer', 'klarna', 'a'.repeat(40)]) {
        const referenceId = `method-${paymentMethod}`;
        const created = await record(a, { paymentMethod, referenceId, authentication: AUTH });
        expect([paymentMethod, created.status, created.body.paymentMethod]).toEqual([
          paymentMethod,
          201,
          paymentMethod,
        ]);
        expect(created.body['3dsecure']).toBeNull();
        const stored = await api.merchant<Record<string, unknown>>(
          a.apiKey,
          `/v1.17/transactions/${created.body.uuid}`,
        );
        expect(stored.body).toEqual(created.body);
        const listed = await api.merchant<{ data: Record<string, unknown>[] }>(
          a.apiKey,
          `/v1.0/transactions?referenceId=${referenceId}`,
        );
        expect(listed.body.data).toEqual([expect.objectContaining({ uuid: created.body.uuid, paymentMethod })]);
      }
    });

    it('refuses a malformed payment method with a 400 problem naming it, and stores nothing', async () => {
      const before = await sql('SELECT count(*)::int AS n FROM transaction WHERE merchant_id = $1', [a.merchantId]);
      const message =
        'must be a lowercase slug of at most 40 characters: letters a-z and digits, words joined by single hyphens ' +
        '(e.g. visa, bank-transfer)';
      for (const paymentMethod of ['Bank-Transfer', 'bank-transfer-', 'klarna pay', 'b'.repeat(41), 'kärtli']) {
        const refused = await record(a, { paymentMethod, authentication: AUTH });
        expect([paymentMethod, refused.status, refused.contentType, refused.body.errors]).toEqual([
          paymentMethod,
          400,
          expect.stringContaining('application/problem+json'),
          [{ field: 'paymentMethod', message }],
        ]);
      }
      const wrongType = await record(a, { paymentMethod: ['visa'] });
      expect(wrongType.body.errors).toEqual([{ field: 'paymentMethod', message: 'must be a string' }]);
      expect(await sql('SELECT count(*)::int AS n FROM transaction WHERE merchant_id = $1', [a.merchantId])).toEqual(
        before,
      );
    });

    it('records a payment whose raw authentication carries nested or unusable data: 3dsecure from what it can read', async () => {
      // EMV 3-D Secure results carry lists of objects (messageExtension); a processed payment is never refused for it.
      const withExtension = await record(a, {
        authentication: {
          ...AUTH,
          messageExtension: [{ name: 'ext', id: 'A000000004-ext', criticalityIndicator: false, data: { k: ['v'] } }],
        },
      });
      expect(withExtension.status).toBe(201);
      expect(withExtension.body['3dsecure']).toEqual({ eci: '05', source: '3ds', version: '2.2.0', flow: 'challenge' });
      // An ECI it cannot read (an object) resolves to null, as an empty or three-digit one does: only one or two
      // digits are an ECI.
      const unusable = await record(a, { authentication: { eci: { value: '05' }, source: '3ds' } });
      expect(unusable.status).toBe(201);
      expect(unusable.body['3dsecure']).toBeNull();
    });

    it('accepts an import with createdAt and a transaction without integration', async () => {
      const created = await record(a, { integrationId: null, createdAt: '2024-02-29T12:00:00.5+01:00' });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ integrationId: null, createdAt: '2024-02-29T11:00:00.500Z' });
    });

    it('refuses a createdAt in the future (beyond 5 minutes of clock skew) and stores nothing', async () => {
      const before = await sql('SELECT count(*)::int AS n FROM transaction WHERE merchant_id = $1', [a.merchantId]);
      for (const createdAt of ['2099-01-01T00:00:00.000Z', new Date(Date.now() + 6 * 60_000).toISOString()]) {
        const refused = await record(a, { createdAt });
        expect([createdAt, refused.status, refused.body.errors]).toEqual([
          createdAt,
          400,
          [{ field: 'createdAt', message: 'must not be in the future' }],
        ]);
      }
      expect(await sql('SELECT count(*)::int AS n FROM transaction WHERE merchant_id = $1', [a.merchantId])).toEqual(
        before,
      );
      // A caller's clock a little ahead of ours is not a mistake.
      const ahead = new Date(Date.now() + 60_000).toISOString();
      const accepted = await record(a, { createdAt: ahead });
      expect([accepted.status, accepted.body.createdAt]).toEqual([201, ahead]);
    });

    it('is idempotent on uuid: the same body again answers 200 with the stored transaction and no new event', async () => {
      const uuid = randomUUID();
      const first = await record(a, { uuid, authentication: AUTH });
      const second = await record(a, { uuid, authentication: AUTH });
      expect(first.status).toBe(201);
      expect(second.status).toBe(200);
      expect(second.body).toEqual(first.body);
      // A retry after the status moved on answers the current state, still without an event.
      await api.platform('POST', `/internal/transactions/${uuid}/status`, { status: 'confirmed' });
      const third = await record(a, { uuid, authentication: AUTH });
      expect(third.status).toBe(200);
      expect(third.body.status).toBe('confirmed');
      expect(await eventsOf(uuid)).toEqual(['transaction.created', 'transaction.status_changed']);
    });

    it('refuses the same uuid with different data (409) and changes nothing', async () => {
      const uuid = randomUUID();
      await record(a, { uuid });
      for (const change of [{ amount: 1991 }, { currency: 'EUR' }, { referenceId: 'other' }, { status: 'confirmed' }]) {
        const conflict = await record(a, { uuid, ...change });
        expect(conflict.status).toBe(409);
        expect(conflict.contentType).toContain('application/problem+json');
        expect(conflict.body.errors).toEqual([{ field: 'uuid', message: expect.any(String) }]);
      }
      const conflictOtherMerchant = await record(b, { uuid });
      expect(conflictOtherMerchant.status).toBe(409);
      const stored = await api.merchant<Record<string, unknown>>(a.apiKey, `/v1.17/transactions/${uuid}`);
      expect(stored.body).toMatchObject({ amount: 1990, currency: 'CHF', referenceId: 'order-1', status: 'waiting' });
      expect(await eventsOf(uuid)).toEqual(['transaction.created']);
    });

    it('records each of concurrent identical creations once', async () => {
      const uuid = randomUUID();
      const replies = await Promise.all(Array.from({ length: 8 }, () => record(a, { uuid })));
      expect(replies.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 201]);
      expect(await eventsOf(uuid)).toEqual(['transaction.created']);
    });

    it('answers bad input with a 4xx problem naming the field, and stores nothing', async () => {
      const before = await sql<{ n: number }>('SELECT count(*)::int AS n FROM transaction WHERE merchant_id = $1', [
        a.merchantId,
      ]);
      const cases: [Record<string, unknown>, string][] = [
        [{ amount: '1990' }, 'amount'],
        [{ amount: 19.9 }, 'amount'],
        [{ amount: 0 }, 'amount'],
        [{ amount: -5 }, 'amount'],
        [{ amount: 100_000_000_001 }, 'amount'],
        [{ currency: 'chf' }, 'currency'],
        [{ currency: 'XYZ' }, 'currency'],
        [{ currency: 'CHFF' }, 'currency'],
        [{ status: 'paid' }, 'status'],
        [{ status: null }, 'status'],
        [{ type: 'online' }, 'type'],
        [{ paymentMethod: 'Cash' }, 'paymentMethod'],
        [{ paymentMethod: 'bank_transfer' }, 'paymentMethod'],
        [{ paymentMethod: 'bank--transfer' }, 'paymentMethod'],
        [{ paymentMethod: '-klarna' }, 'paymentMethod'],
        [{ paymentMethod: 'a'.repeat(41) }, 'paymentMethod'],
        [{ paymentMethod: '' }, 'paymentMethod'],
        [{ paymentMethod: 5 }, 'paymentMethod'],
        [{ psp: '' }, 'psp'],
        [{ psp: 5 }, 'psp'],
        [{ referenceId: 'x'.repeat(256) }, 'referenceId'],
        [{ merchantId: 'nope' }, 'merchantId'],
        [{ integrationId: 42 }, 'integrationId'],
        [{ uuid: 'not-a-uuid' }, 'uuid'],
        [{ authentication: 'AAAB' }, 'authentication'],
        [{ authentication: [1] }, 'authentication'],
        [{ authentication: { eci: '05', extra: 'x'.repeat(1_025) } }, 'authentication'],
        [{ authentication: { eci: '05', list: Array.from({ length: 33 }, () => 1) } }, 'authentication'],
        [{ createdAt: '2026-11-22' }, 'createdAt'],
        [{ createdAt: '2026-02-30T00:00:00Z' }, 'createdAt'],
        [{ surprise: 1 }, 'surprise'],
      ];
      for (const [change, field] of cases) {
        const reply = await record(a, change);
        expect([field, reply.status]).toEqual([field, 400]);
        expect(reply.contentType).toContain('application/problem+json');
        expect((reply.body.errors as { field: string }[]).map((e) => e.field)).toContain(field);
      }
      const headers = { authorization: 'Bearer development-platform-token', 'content-type': 'application/json' };
      for (const [raw, status] of [
        ['{"merchantId":', 400],
        ['', 400],
        ['[]', 400],
        ['null', 400],
        ['"text"', 400],
        [`{"psp":"${'x'.repeat(70_000)}"}`, 413],
        // Thousands of levels fit in a few kilobytes: refused before the recursive validation could overflow (was 500).
        [`{"surprise":${'['.repeat(3_000)}${']'.repeat(3_000)}}`, 400],
        [`{"authentication":${'{"x":'.repeat(3_000)}1${'}'.repeat(3_000)}}`, 400],
      ] as const) {
        const reply = await api.request('POST', '/internal/transactions', { raw, headers });
        expect([raw.slice(0, 20), reply.status]).toEqual([raw.slice(0, 20), status]);
        expect(reply.contentType).toContain('application/problem+json');
      }
      const textPlain = await api.request('POST', '/internal/transactions', {
        raw: 'x',
        headers: { ...headers, 'content-type': 'text/plain' },
      });
      expect(textPlain.status).toBe(415);
      expect(await sql('SELECT count(*)::int AS n FROM transaction WHERE merchant_id = $1', [a.merchantId])).toEqual(
        before,
      );
    });

    it('gives one true message per field: missing before wrong type, the whole rule of createdAt', async () => {
      const missing = await api.platform('POST', '/internal/transactions', {});
      expect([missing.status, missing.body.errors]).toEqual([
        400,
        ['merchantId', 'status', 'psp', 'type', 'paymentMethod', 'amount', 'currency'].map((field) => ({
          field,
          message: 'is required',
        })),
      ]);
      const wrongType = await record(a, { amount: 'abc', psp: 5 });
      expect([wrongType.status, wrongType.body.errors]).toEqual([
        400,
        [
          { field: 'psp', message: 'must be a string' },
          { field: 'amount', message: 'must be an integer number of minor units' },
        ],
      ]);
      const message =
        'must be an ISO 8601 date-time with a time zone in the years 1970–9999, e.g. 2026-11-22T10:00:00.000Z';
      for (const createdAt of ['1969-12-31T23:59:59Z', '10000-01-01T00:00:00Z', '2026-11-22T10:00:00', 42]) {
        const reply = await record(a, { createdAt });
        expect([createdAt, reply.status, reply.body.errors]).toEqual([
          createdAt,
          400,
          [{ field: 'createdAt', message }],
        ]);
      }
    });

    it('refuses text PostgreSQL cannot store (NUL) naming the field', async () => {
      for (const field of ['referenceId', 'psp']) {
        const reply = await record(a, { [field]: 'a\u0000b' });
        expect(reply.status).toBe(400);
        expect((reply.body.errors as { field: string }[]).map((e) => e.field)).toEqual([field]);
      }
    });

    it('counts text length as the database does: an emoji presentation sequence is two characters', async () => {
      // "a\uFE0F" is one character to class-validator's Length, two to PostgreSQL's length() and CHECK.
      const tooLong = { psp: 'a\uFE0F'.repeat(51), referenceId: 'a\uFE0F'.repeat(128) };
      for (const [field, value] of Object.entries(tooLong)) {
        const reply = await record(a, { [field]: value });
        expect(reply.status).toBe(400);
        expect(reply.body.errors).toEqual([{ field, message: expect.stringMatching(/characters long/) }]);
      }
      const fits = await record(a, { psp: 'a\uFE0F'.repeat(50), referenceId: '\u{1F600}'.repeat(255) });
      expect(fits.status).toBe(201);
      expect(fits.body.psp).toBe('a\uFE0F'.repeat(50));
    });

    it('names the field for an unknown merchant or an integration of another merchant', async () => {
      const unknown = await api.platform('POST', '/internal/transactions', transactionBody(randomUUID(), null));
      expect(unknown.status).toBe(400);
      expect(unknown.body.errors).toEqual([{ field: 'merchantId', message: expect.any(String) }]);
      const foreign = await api.platform(
        'POST',
        '/internal/transactions',
        transactionBody(a.merchantId, b.integrationId),
      );
      expect(foreign.status).toBe(400);
      expect(foreign.body.errors).toEqual([{ field: 'integrationId', message: expect.any(String) }]);
    });
  });

  describe('status changes (POST /internal/transactions/{uuid}/status)', () => {
    it('follows the state machine: allowed moves emit, the same status is a no-op, a forbidden move is 409', async () => {
      const uuid = (await record(a)).body.uuid as string;
      const move = (status: string) =>
        api.platform<Record<string, unknown>>('POST', `/internal/transactions/${uuid}/status`, { status });

      const authorized = await move('authorized');
      expect(authorized.status).toBe(200);
      expect(authorized.body.status).toBe('authorized');
      expect(Object.keys(authorized.body)).toEqual([...BASE_KEYS, '3dsecure']);
      expect((await move('authorized')).status).toBe(200);
      expect((await move('confirmed')).status).toBe(200);

      const back = await move('waiting');
      expect(back.status).toBe(409);
      expect(back.contentType).toContain('application/problem+json');
      expect(back.body).toMatchObject({ status: 409, type: 'urn:problem:status-transition' });

      expect((await move('refunded')).status).toBe(200);
      expect((await move('confirmed')).status).toBe(409);
      expect((await move('refunded')).status).toBe(200);
      expect(await eventsOf(uuid)).toEqual([
        'transaction.created',
        'transaction.status_changed',
        'transaction.status_changed',
        'transaction.status_changed',
      ]);
      const stored = await api.merchant<Record<string, unknown>>(a.apiKey, `/v1.17/transactions/${uuid}`);
      expect(stored.body.status).toBe('refunded');
    });

    it('gives every change a later updatedAt than the one before, even for an import dated a little ahead', async () => {
      const ahead = new Date(Date.now() + 120_000).toISOString();
      const created = await record(a, { createdAt: ahead });
      expect(created.body.updatedAt).toBe(ahead);
      const uuid = created.body.uuid as string;
      const seen = [ahead];
      for (const status of ['authorized', 'confirmed', 'refund_pending', 'refunded']) {
        const moved = await api.platform<{ updatedAt: string }>('POST', `/internal/transactions/${uuid}/status`, {
          status,
        });
        seen.push(moved.body.updatedAt);
      }
      // Strictly increasing, so a receiver can keep the state with the newest updatedAt.
      for (let i = 1; i < seen.length; i += 1) expect(Date.parse(seen[i])).toBeGreaterThan(Date.parse(seen[i - 1]));
      const events = await sql<{ updatedAt: string }>(
        `SELECT payload->'data'->>'updatedAt' AS "updatedAt" FROM outbox_event WHERE subject_id = $1 ORDER BY seq`,
        [uuid],
      );
      expect(events.map((e) => e.updatedAt)).toEqual(seen);
    });

    it('answers 404 for an unknown uuid, 400 for a malformed one or an unknown status', async () => {
      expect(
        (await api.platform('POST', `/internal/transactions/${randomUUID()}/status`, { status: 'confirmed' })).status,
      ).toBe(404);
      const malformed = await api.platform('POST', '/internal/transactions/nope/status', { status: 'confirmed' });
      expect(malformed.status).toBe(400);
      expect(malformed.body.errors).toEqual([{ field: 'uuid', message: 'must be a UUID' }]);
      const uuid = (await record(a)).body.uuid as string;
      const unknown = await api.platform('POST', `/internal/transactions/${uuid}/status`, { status: 'paid' });
      expect(unknown.status).toBe(400);
      expect(unknown.body.errors).toEqual([{ field: 'status', message: expect.any(String) }]);
    });

    it('serialises concurrent moves of one transaction: exactly one wins each event', async () => {
      const uuid = (await record(a)).body.uuid as string;
      const replies = await Promise.all(
        ['confirmed', 'declined', 'cancelled', 'error', 'authorized'].map((status) =>
          api.platform('POST', `/internal/transactions/${uuid}/status`, { status }),
        ),
      );
      const events = await eventsOf(uuid);
      expect(replies.every((r) => r.status === 200 || r.status === 409)).toBe(true);
      expect(events.length).toBe(1 + replies.filter((r) => r.status === 200).length);
    });
  });

  describe('merchant read API', () => {
    it('renders every API version: no 3dsecure key before 1.17, always from 1.17, nothing else differs', async () => {
      const withAuth = (await record(a, { authentication: AUTH })).body.uuid as string;
      const without = (await record(a, { type: 'pos' })).body.uuid as string;
      const latest = (await api.merchant<Record<string, unknown>>(a.apiKey, `/v1.17/transactions/${withAuth}`)).body;
      for (const version of API_VERSIONS) {
        for (const uuid of [withAuth, without]) {
          const one = await api.merchant<Record<string, unknown>>(a.apiKey, `/v${version}/transactions/${uuid}`);
          expect(one.status).toBe(200);
          expect(Object.keys(one.body)).toEqual(version === '1.17' ? [...BASE_KEYS, '3dsecure'] : BASE_KEYS);
          const list = await api.merchant<{ data: Record<string, unknown>[] }>(
            a.apiKey,
            `/v${version}/transactions?limit=3`,
          );
          expect(list.status).toBe(200);
          for (const item of list.body.data) expect('3dsecure' in item).toBe(version === '1.17');
        }
        const old = (await api.merchant<Record<string, unknown>>(a.apiKey, `/v${version}/transactions/${withAuth}`))
          .body;
        const { '3dsecure': threeDSecure, ...base } = latest;
        expect(old).toEqual(version === '1.17' ? latest : base);
        expect(threeDSecure).toEqual({ eci: '05', source: '3ds', version: '2.2.0', flow: 'challenge' });
      }
      const pos = await api.merchant<Record<string, unknown>>(a.apiKey, `/v1.17/transactions/${without}`);
      expect(pos.body['3dsecure']).toBeNull();
    });

    it('answers 404 problems for any other version', async () => {
      const uuid = (await record(a)).body.uuid as string;
      for (const version of ['1.18', '2.0', '1.017', '1', 'latest', '0.9', '1.17.0', '', 'v1.17', 'v1.0']) {
        for (const path of [`/v${version}/transactions/${uuid}`, `/v${version}/transactions`]) {
          const reply = await api.merchant(a.apiKey, path);
          expect(reply.status).toBe(404);
          expect(reply.contentType).toContain('application/problem+json');
        }
      }
    });

    it("lets a key of merchant A see none of merchant B's transactions: 404 exactly like an unknown uuid", async () => {
      const ofB: string[] = [];
      for (let i = 0; i < 5; i += 1) ofB.push((await record(b, { referenceId: `b-${i}` })).body.uuid as string);
      const unknown = await api.merchant(a.apiKey, `/v1.17/transactions/${randomUUID()}`);
      expect(unknown.status).toBe(404);
      for (const uuid of ofB) {
        for (const version of ['1.0', '1.16', '1.17']) {
          const reply = await api.merchant(a.apiKey, `/v${version}/transactions/${uuid}`);
          expect(reply.status).toBe(404);
          expect(reply.body).toEqual(unknown.body);
        }
        expect((await api.merchant(b.apiKey, `/v1.17/transactions/${uuid}`)).status).toBe(200);
      }
      let cursor: string | null = null;
      const seen: string[] = [];
      do {
        const page: { body: { data: { uuid: string }[]; nextCursor: string | null } } = await api.merchant(
          a.apiKey,
          `/v1.17/transactions?limit=100${cursor ? `&cursor=${cursor}` : ''}`,
        );
        seen.push(...page.body.data.map((t) => t.uuid));
        cursor = page.body.nextCursor;
      } while (cursor);
      expect(seen.some((uuid) => ofB.includes(uuid))).toBe(false);
      expect(
        (await api.merchant<{ data: unknown[] }>(a.apiKey, '/v1.17/transactions?referenceId=b-1')).body.data,
      ).toEqual([]);
    });

    it('sees transactions of every integration of its merchant', async () => {
      const second = await api.platform<{ apiKey: string; id: string }>(
        'POST',
        `/internal/merchants/${a.merchantId}/integrations`,
        { name: 'POS' },
      );
      const uuid = (await record(a, { integrationId: second.body.id })).body.uuid as string;
      expect((await api.merchant(a.apiKey, `/v1.17/transactions/${uuid}`)).status).toBe(200);
      expect((await api.merchant(second.body.apiKey, `/v1.17/transactions/${uuid}`)).status).toBe(200);
    });
  });
});
