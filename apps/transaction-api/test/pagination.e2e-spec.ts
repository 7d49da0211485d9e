import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { TRANSACTION_STATUSES, TRANSACTION_TYPES } from '#domain';
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
        (t) => t.createdAt >= '2026-01-01T00:10:00.000Z' && t.createdAt < '2026-01-01T00:20:00.000Z',
      ],
      ['&createdFrom=2026-01-01T01:10:00%2B01:00', (t) => t.createdAt >= '2026-01-01T00:10:00.000Z'],
      ['&createdTo=2026-01-01T01:10:00+01:00', (t) => t.createdAt < '2026-01-01T00:10:00.000Z'],
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

  it('answers 400 problems naming the parameter, with one true message each, for bad parameters', async () => {
    const field = (name: string, message: string) => [{ field: name, message }];
    const limit = field('limit', 'must be an integer from 1 to 100');
    const instant =
      'must be an ISO 8601 date-time with a time zone in the years 1970–9999, e.g. 2026-11-22T10:00:00.000Z';
    const once = (name: string) => field(name, 'must be given only once');
    const status = field('status', `must be one of the following values: ${TRANSACTION_STATUSES.join(', ')}`);
    const order = field('order', 'must be one of the following values: -createdAt, updatedAt');
    const cases: [string, { field: string; message: string }[]][] = [
      ['limit=0', limit],
      ['limit=101', limit],
      ['limit=abc', limit],
      ['limit=1.5', limit],
      ['limit=-1', limit],
      ['limit=', limit],
      ['cursor=garbage', field('cursor', 'is not a cursor returned by this API')],
      ['cursor=eyJhIjoxfQ', field('cursor', 'is not a cursor returned by this API')],
      ['cursor=', field('cursor', 'must be between 1 and 200 characters long')],
      ['status=paid', status],
      ['type=online', field('type', `must be one of the following values: ${TRANSACTION_TYPES.join(', ')}`)],
      ['createdFrom=yesterday', field('createdFrom', instant)],
      ['createdTo=2026-02-30T00:00:00Z', field('createdTo', instant)],
      ['createdFrom=1969-12-31T23:59:59Z', field('createdFrom', instant)],
      // No zone: the instant would depend on the server's time zone (CONTRACT §3).
      ['createdFrom=2026-11-28T00:00:00', field('createdFrom', instant)],
      ['createdTo=2026-11-28', field('createdTo', instant)],
      ['updatedFrom=2026-11-28T00:00', field('updatedFrom', instant)],
      ['updatedTo=20261128T000000Z', field('updatedTo', instant)],
      ['referenceId=', field('referenceId', 'must be between 1 and 255 characters long')],
      ['referenceId=a%00b', field('referenceId', 'must not contain NUL characters')],
      ['psp=' + 'x'.repeat(101), field('psp', 'must be between 1 and 100 characters long')],
      ['sort=asc', field('sort', 'property sort should not exist')],
      // A repeated parameter: that is the problem, whatever its values (here each would be valid alone).
      ['limit=1&limit=2', once('limit')],
      ['limit=abc&limit=', once('limit')],
      ['status=confirmed&status=waiting', once('status')],
      ['createdFrom=2026-01-01T00:00:00Z&createdFrom=2026-01-02T00:00:00Z', once('createdFrom')],
      ['limit=1&limit=2&status=paid', [...once('limit'), ...status]],
      [
        'createdFrom=2026-01-02T00:00:00Z&createdTo=2026-01-01T23:59:59.999Z',
        field('createdTo', 'must be after createdFrom'),
      ],
      // `…To` is exclusive: equal bounds select nothing, which is a mistake rather than a query.
      [
        'createdFrom=2026-01-02T00:00:00Z&createdTo=2026-01-02T01:00:00%2B01:00',
        field('createdTo', 'must be after createdFrom'),
      ],
      [
        'updatedFrom=2026-01-02T00:00:00Z&updatedTo=2026-01-02T00:00:00Z',
        field('updatedTo', 'must be after updatedFrom'),
      ],
      [
        'updatedFrom=2026-01-02T00:00:01Z&updatedTo=2026-01-02T00:00:00Z',
        field('updatedTo', 'must be after updatedFrom'),
      ],
      ['updatedFrom=last-sync', field('updatedFrom', instant)],
      ['updatedTo=2026-01-01', field('updatedTo', instant)],
      ['order=createdAt', order],
      ['order=-updatedAt', order],
      ['order=', order],
      ['order=updatedAt&order=updatedAt', once('order')],
    ];
    for (const [query, errors] of cases) {
      const reply = await api.merchant<{ status: number; errors?: { field: string; message: string }[] }>(
        merchant.apiKey,
        `/v1.17/transactions?${query}`,
      );
      expect([query, reply.status, reply.body.errors]).toEqual([query, 400, errors]);
      expect(reply.contentType).toContain('application/problem+json');
    }
  });

  it('takes createdFrom as inclusive and createdTo as exclusive', async () => {
    const instant = recorded[60].createdAt; // 60 transactions were created before it, 3 at it
    const atInstant = recorded
      .filter((t) => t.createdAt === instant)
      .map((t) => t.uuid)
      .sort();
    expect(atInstant).toHaveLength(3);
    const before = recorded
      .filter((t) => t.createdAt < instant)
      .map((t) => t.uuid)
      .sort();
    expect(before).toHaveLength(60);
    const oneMsLater = new Date(Date.parse(instant) + 1).toISOString();
    const uuids = async (query: string) => {
      const reply = await api.merchant<Page>(merchant.apiKey, `/v1.17/transactions?limit=100&${query}`);
      expect([query, reply.status]).toEqual([query, 200]);
      return reply.body.data.map((t) => t.uuid).sort();
    };
    expect(await uuids(`createdFrom=${instant}&createdTo=${oneMsLater}`)).toEqual(atInstant);
    expect(await uuids(`createdTo=${instant}`)).toEqual(before);
  });
});
