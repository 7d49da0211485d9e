import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from './db.js';
import { TransactionApiHarness, transactionBody } from './harness.js';

interface Listed {
  uuid: string;
  status: string;
  referenceId: string | null;
  updatedAt: string;
}
interface Page {
  data: Listed[];
  nextCursor: string | null;
}

/** A move the state machine allows from each status these tests reach. */
const NEXT: Record<string, string> = {
  waiting: 'confirmed',
  authorized: 'confirmed',
  confirmed: 'refund_pending',
  refund_pending: 'refunded',
};
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A merchant catching up after downtime: `updatedFrom=<last sync>&order=updatedAt`, following `nextCursor` until it
 * is null, gets every transaction changed at or after that instant, oldest change first, whatever happens meanwhile.
 */
describe('catching up on changes by updatedAt (e2e over HTTP)', () => {
  let api: TransactionApiHarness;
  let merchant: { merchantId: string; integrationId: string; apiKey: string };
  /** The instant of the first status change: the "last sync" of these tests. */
  let since: string;

  const change = async (uuid: string, status: string) => {
    const reply = await api.platform<Listed>('POST', `/internal/transactions/${uuid}/status`, { status });
    expect([uuid, reply.status]).toEqual([uuid, 200]);
    return reply.body;
  };

  /** The merchant's transactions as stored now, oldest change first by (updatedAt, uuid). */
  const stored = async () =>
    (
      await sql<{ uuid: string; status: string; reference_id: string; updated_at: Date }>(
        'SELECT uuid, status, reference_id, updated_at FROM transaction WHERE merchant_id = $1',
        [merchant.merchantId],
      )
    )
      .map((row) => ({
        uuid: row.uuid,
        status: row.status,
        referenceId: row.reference_id,
        updatedAt: row.updated_at.toISOString(),
      }))
      .sort((x, y) => (x.updatedAt !== y.updatedAt ? (x.updatedAt < y.updatedAt ? -1 : 1) : x.uuid < y.uuid ? -1 : 1));

  const list = (query: string) => api.merchant<Page>(merchant.apiKey, `/v1.17/transactions?${query}`);

  /**
   * Follows nextCursor (pages of 2) until it is null; `between` runs after each page (changes made during the walk).
   * Returns what a reconciliation keeps of each listed transaction.
   */
  async function walk(query: string, between: (page: number, seen: Listed[]) => Promise<void> = async () => {}) {
    const seen: Listed[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const reply: { status: number; body: Page } = await list(
        `${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      expect([query, reply.status]).toEqual([query, 200]);
      if (reply.body.nextCursor) expect(reply.body.data).toHaveLength(2);
      seen.push(
        ...reply.body.data.map(({ uuid, status, referenceId, updatedAt }) => ({
          uuid,
          status,
          referenceId,
          updatedAt,
        })),
      );
      cursor = reply.body.nextCursor;
      pages += 1;
      await between(pages, seen);
    } while (cursor && pages < 100);
    return seen;
  }

  beforeAll(async () => {
    api = await TransactionApiHarness.start();
    merchant = await api.merchantWithKey();
    // Ten imports, created (createdAt) in the reverse of the order they are recorded (updatedAt), a few ms apart.
    const created: Listed[] = [];
    for (let i = 0; i < 10; i += 1) {
      const reply = await api.platform<Listed>(
        'POST',
        '/internal/transactions',
        transactionBody(merchant.merchantId, merchant.integrationId, {
          createdAt: new Date(Date.UTC(2026, 0, 1) - i * 60_000).toISOString(),
          referenceId: `order-${i % 3}`,
        }),
      );
      expect(reply.status).toBe(201);
      created.push(reply.body);
      await pause(2);
    }
    await pause(5);
    // The first change is the instant caught up from; that transaction keeps it as its updatedAt until the walks.
    since = (await change(created[7].uuid, 'authorized')).updatedAt;
    for (const [index, status] of [
      [3, 'confirmed'],
      [1, 'declined'],
      [3, 'refund_pending'],
      [5, 'confirmed'],
    ] as const) {
      await pause(2);
      await change(created[index].uuid, status);
    }
    for (let i = 0; i < 3; i += 1) {
      await pause(2);
      const reply = await api.platform('POST', '/internal/transactions', transactionBody(merchant.merchantId, null));
      expect(reply.status).toBe(201);
    }
  });
  afterAll(async () => {
    await api.close();
  });

  it('lists every transaction changed at or after updatedFrom, oldest change first, and none changed before', async () => {
    const now = await stored();
    const changed = now.filter((t) => t.updatedAt >= since);
    // 4 changed (one of them twice) and 3 new; the 6 imports left alone were last changed before `since`.
    expect([changed.length, now.length - changed.length]).toEqual([7, 6]);
    expect(changed[0].updatedAt).toBe(since);
    const seen = await walk(`updatedFrom=${since}&order=updatedAt&limit=2`);
    expect(seen).toEqual(changed);
    // Without updatedFrom: every transaction, in the same order.
    expect((await walk('order=updatedAt&limit=2')).map((t) => t.uuid)).toEqual(now.map((t) => t.uuid));
  });

  it('shows a transaction changed during the walk again behind the cursor, with its new status', async () => {
    const before = (await stored()).filter((t) => t.updatedAt >= since);
    let seenAgain: Listed | undefined;
    let unseen: Listed | undefined;
    const seen = await walk(`updatedFrom=${since}&order=updatedAt&limit=2`, async (page, sofar) => {
      if (page === 1) {
        // One already listed on page 1 …
        seenAgain = sofar.find((t) => NEXT[t.status]);
        await change(seenAgain!.uuid, NEXT[seenAgain!.status]);
      } else if (page === 2) {
        // … and one not listed yet.
        unseen = before.slice(sofar.length).find((t) => NEXT[t.status]);
        await change(unseen!.uuid, NEXT[unseen!.status]);
      }
    });
    expect(seenAgain && unseen).toBeTruthy();
    const after = await stored();
    const now = (uuid: string) => after.find((t) => t.uuid === uuid)!;
    expect(seen.map((t) => t.uuid)).toEqual([
      ...before.filter((t) => t.uuid !== unseen!.uuid).map((t) => t.uuid),
      seenAgain!.uuid,
      unseen!.uuid,
    ]);
    expect(seen.slice(-2)).toEqual([now(seenAgain!.uuid), now(unseen!.uuid)]);
    expect(seen.filter((t) => t.uuid === seenAgain!.uuid).map((t) => t.status)).toEqual([
      seenAgain!.status,
      NEXT[seenAgain!.status],
    ]);
  });

  it('takes updatedFrom as inclusive and updatedTo as exclusive', async () => {
    const changed = (await stored()).filter((t) => t.updatedAt >= since);
    const edge = changed[3].updatedAt;
    const oneMsLater = new Date(Date.parse(edge) + 1).toISOString();
    const uuids = async (query: string) => (await walk(`${query}&order=updatedAt&limit=2`)).map((t) => t.uuid);
    expect(await uuids(`updatedFrom=${since}&updatedTo=${edge}`)).toEqual(
      changed.filter((t) => t.updatedAt < edge).map((t) => t.uuid),
    );
    expect(await uuids(`updatedFrom=${edge}&updatedTo=${oneMsLater}`)).toEqual(
      changed.filter((t) => t.updatedAt === edge).map((t) => t.uuid),
    );
    expect(await uuids(`updatedTo=${since}`)).toEqual(
      (await stored()).filter((t) => t.updatedAt < since).map((t) => t.uuid),
    );
  });

  it('combines with the status and referenceId filters', async () => {
    const changed = (await stored()).filter((t) => t.updatedAt >= since);
    for (const [query, keep] of [
      ['status=waiting', (t: Listed) => t.status === 'waiting'],
      ['referenceId=order-1', (t: Listed) => t.referenceId === 'order-1'],
      ['status=waiting&referenceId=order-1', (t: Listed) => t.status === 'waiting' && t.referenceId === 'order-1'],
    ] as const) {
      const expected = changed.filter(keep);
      expect([query, expected.length > 0, expected.length < changed.length]).toEqual([query, true, true]);
      expect(await walk(`updatedFrom=${since}&order=updatedAt&${query}&limit=2`)).toEqual(expected);
    }
  });

  it("refuses a cursor in the other order, naming cursor and the cursor's order", async () => {
    const byChange = (await list(`updatedFrom=${since}&order=updatedAt&limit=2`)).body.nextCursor;
    const newestFirst = (await list('limit=2')).body.nextCursor;
    for (const [query, made] of [
      [`limit=2&cursor=${byChange}`, 'updatedAt'],
      [`limit=2&order=-createdAt&cursor=${byChange}`, 'updatedAt'],
      [`limit=2&order=updatedAt&cursor=${newestFirst}`, '-createdAt'],
    ] as const) {
      const reply = await list(query);
      expect([query, reply.status, (reply.body as unknown as { errors: unknown }).errors]).toEqual([
        query,
        400,
        [{ field: 'cursor', message: `was returned for order=${made}; send it with that order` }],
      ]);
    }
  });
});
