import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { TransactionApiHarness, transactionBody } from './harness.js';

interface Page {
  data: { uuid: string; createdAt: string; status: string; referenceId: string | null; psp: string; type: string }[];
  nextCursor: string | null;
}

describe('listing transactions with keyset pagination (e2e over HTTP)', () => {
  let api: TransactionApiHarness;
  let merchant: { merchantId: string; integrationId: string; apiKey: string };
  const recorded: {
    uuid: string;
    createdAt: string;
    status: string;
    referenceId: string;
    psp: string;
    type: string;
  }[] = [];
  const STATUSES = ['waiting', 'confirmed', 'declined'];
  const TYPES = ['e-commerce', 'pos', 'tap-to-pay'];

  beforeAll(async () => {
    api = await TransactionApiHarness.start();
    merchant = await api.merchantWithKey();
    // 150 imports over 50 distinct instants: three transactions share each createdAt, so ties must be broken by uuid.
    const bodies = Array.from({ length: 150 }, (_, i) =>
      transactionBody(merchant.merchantId, merchant.integrationId, {
        createdAt: new Date(Date.UTC(2026, 0, 1) + Math.floor(i / 3) * 60_000).toISOString(),
        status: STATUSES[i % 3],
        type: TYPES[Math.floor(i / 3) % 3],
        psp: i % 5 === 0 ? 'Stripe' : 'Payrexx Direct',
        referenceId: `order-${i % 10}`,
      }),
    );
    for (let i = 0; i < bodies.length; i += 25) {
      const replies = await Promise.all(
        bodies
          .slice(i, i + 25)
          .map((body) => api.platform<Record<string, string>>('POST', '/internal/transactions', body)),
      );
      for (const reply of replies) {
        expect(reply.status).toBe(201);
        recorded.push(reply.body as never);
      }
    }
  });
  afterAll(async () => {
    await api.close();
  });

  const newestFirst = (rows: { uuid: string; createdAt: string }[]) =>
    [...rows]
      .sort((x, y) => (x.createdAt === y.createdAt ? (x.uuid < y.uuid ? 1 : -1) : x.createdAt < y.createdAt ? 1 : -1))
      .map((r) => r.uuid);

  async function walk(query: string, limit: number): Promise<{ uuids: string[]; pages: number }> {
    const uuids: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const reply: { status: number; body: Page } = await api.merchant<Page>(
        merchant.apiKey,
        `/v1.17/transactions?limit=${limit}${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      expect(reply.status).toBe(200);
      expect(reply.body.data.length).toBeLessThanOrEqual(limit);
      if (reply.body.nextCursor) expect(reply.body.data).toHaveLength(limit);
      uuids.push(...reply.body.data.map((t) => t.uuid));
      cursor = reply.body.nextCursor;
      pages += 1;
    } while (cursor && pages < 1_000);
    return { uuids, pages };
  }

  it('walks every transaction newest first across pages, without duplicates or misses, for several page sizes', async () => {
    const expected = newestFirst(recorded);
    for (const limit of [1, 7, 20, 100]) {
      const { uuids, pages } = await walk('', limit);
      expect(new Set(uuids).size).toBe(uuids.length);
      expect(uuids).toEqual(expected);
      expect(pages).toBe(
        Math.ceil(expected.length / limit) +
          (expected.length % limit === 0 ? 1 : 0) -
          (expected.length % limit === 0 ? 1 : 0),
      );
    }
  });

  it('defaults to 20 per page', async () => {
    const reply = await api.merchant<Page>(merchant.apiKey, '/v1.17/transactions');
    expect(reply.body.data).toHaveLength(20);
    expect(reply.body.nextCursor).toEqual(expect.any(String));
  });

  it('filters by status, referenceId, psp, type and the createdAt range, combined, across pages', async () => {
    const cases: [string, (t: (typeof recorded)[number]) => boolean][] = [
      ['&status=confirmed', (t) => t.status === 'confirmed'],
      ['&referenceId=order-3', (t) => t.referenceId === 'order-3'],
      ['&psp=Stripe', (t) => t.psp === 'Stripe'],
      ['&type=pos', (t) => t.type === 'pos'],
      ['&type=pos&status=declined', (t) => t.type === 'pos' && t.status === 'declined'],
      [
        '&createdFrom=2026-01-01T00:10:00Z&createdTo=2026-01-01T00:20:00.000Z',
        (t) => t.createdAt >= '2026-01-01T00:10:00.000Z' && t.createdAt <= '2026-01-01T00:20:00.000Z',
      ],
      ['&createdFrom=2026-01-01T01:10:00%2B01:00', (t) => t.createdAt >= '2026-01-01T00:10:00.000Z'],
      ['&createdTo=2026-01-01T01:10:00+01:00', (t) => t.createdAt <= '2026-01-01T00:10:00.000Z'],
    ];
    for (const [query, keep] of cases) {
      const expected = newestFirst(recorded.filter(keep));
      expect(expected.length).toBeGreaterThan(0);
      expect((await walk(query, 4)).uuids).toEqual(expected);
    }
  });

  it('keeps pages stable while new transactions arrive (they appear only on page 1)', async () => {
    const first = await api.merchant<Page>(merchant.apiKey, '/v1.17/transactions?limit=10&status=waiting');
    await api.platform(
      'POST',
      '/internal/transactions',
      transactionBody(merchant.merchantId, null, { status: 'waiting' }),
    );
    const second = await api.merchant<Page>(
      merchant.apiKey,
      `/v1.17/transactions?limit=10&status=waiting&cursor=${first.body.nextCursor}`,
    );
    const expected = newestFirst(recorded.filter((t) => t.status === 'waiting'));
    expect(second.body.data.map((t) => t.uuid)).toEqual(expected.slice(10, 20));
  });

  it('answers 400 problems naming the parameter for bad limits, cursors, filters and unknown parameters', async () => {
    const cases: [string, string][] = [
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=abc', 'limit'],
      ['limit=1.5', 'limit'],
      ['limit=-1', 'limit'],
      ['limit=', 'limit'],
      ['limit=1&limit=2', 'limit'],
      ['cursor=garbage', 'cursor'],
      ['cursor=eyJhIjoxfQ', 'cursor'],
      ['cursor=', 'cursor'],
      ['status=paid', 'status'],
      ['type=online', 'type'],
      ['createdFrom=yesterday', 'createdFrom'],
      ['createdTo=2026-02-30T00:00:00Z', 'createdTo'],
      ['referenceId=', 'referenceId'],
      ['referenceId=a%00b', 'referenceId'],
      ['psp=' + 'x'.repeat(101), 'psp'],
      ['sort=asc', 'sort'],
    ];
    for (const [query, field] of cases) {
      const reply = await api.merchant<{ status: number; errors?: { field: string }[] }>(
        merchant.apiKey,
        `/v1.17/transactions?${query}`,
      );
      expect([query, reply.status]).toEqual([query, 400]);
      expect(reply.contentType).toContain('application/problem+json');
      expect(reply.body.errors?.map((e) => e.field)).toContain(field);
    }
  });
});
