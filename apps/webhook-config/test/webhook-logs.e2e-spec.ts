import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import {
  type Answer,
  type Client,
  newMerchantSession,
  PUBLIC_URL,
  type RunningApp,
  startApp,
} from './support/harness.js';
import { seedDelivery, tenOClockDaysAgo } from './support/log-seed.js';
import { EVENT_KINDS } from '#domain';

/** The kinds of event as the problems list them. */
const KINDS = EVENT_KINDS.join(', ');

describe('webhook log (e2e over HTTP)', () => {
  let running: RunningApp;
  let client: Client;
  let webhook: { id: string; merchantId: string; url: string };

  beforeAll(async () => {
    running = await startApp();
    client = await newMerchantSession(running);
    const created = await client.post('/api/webhooks', { name: 'Logged', url: PUBLIC_URL, events: ['transaction'] });
    webhook = { id: created.body.id, merchantId: client.merchantId, url: PUBLIC_URL };
  });
  afterAll(async () => {
    await running.close();
  });

  it('shows each attempt with exactly the keys of a log entry, no key more, newest first', async () => {
    const t0 = tenOClockDaysAgo(4);
    const next = new Date(t0 + 60_000);
    const { eventId, logIds } = await seedDelivery(running.db, webhook, [
      {
        status: 0,
        createdAt: new Date(t0),
        error: 'no complete response within 20000 ms',
        durationMs: 20_000,
        nextAttemptAt: next,
      },
      { status: 200, createdAt: new Date(t0 + 60_000), responseExcerpt: 'ok' },
    ]);
    const answer = await client.get(`/api/webhooks/${webhook.id}/logs`);
    expect(answer.status).toBe(200);
    expect(answer.body.nextCursor).toBeNull();
    const [newest, oldest] = answer.body.data;
    expect(Object.keys(newest).sort()).toEqual(
      [
        'attempt',
        'createdAt',
        'durationMs',
        'error',
        'eventId',
        'eventType',
        'id',
        'nextAttemptAt',
        'outcome',
        'request',
        'responseExcerpt',
        'status',
      ].sort(),
    );
    expect(oldest).toEqual({
      id: logIds[0],
      attempt: 1,
      eventType: 'transaction',
      eventId,
      request: {
        url: PUBLIC_URL,
        contentType: 'json',
        version: '2026-08-20',
        psp: 'Payrexx Direct',
        type: 'e-commerce',
        uuid: expect.any(String),
        referenceId: null,
      },
      outcome: 'failed',
      status: 0,
      durationMs: 20_000,
      error: 'no complete response within 20000 ms',
      responseExcerpt: null,
      createdAt: new Date(t0).toISOString(),
      nextAttemptAt: next.toISOString(),
    });
    expect(newest).toMatchObject({
      id: logIds[1],
      attempt: 2,
      outcome: 'delivered',
      status: 200,
      responseExcerpt: 'ok',
    });
  });

  it('numbers attempts by their place, so a resend and a repeat that was already scheduled never read alike', async () => {
    const other = await client.post('/api/webhooks', { name: 'Resent', url: PUBLIC_URL, events: ['transaction'] });
    const resent = { id: other.body.id, merchantId: client.merchantId, url: PUBLIC_URL };
    const at = (minute: number) => new Date(tenOClockDaysAgo(1) + minute * 60_000);
    // Attempt 2 failed and scheduled repeat 3; the merchant pressed Resend before it ran, and the resend took the
    // next number too (the dispatcher's count: both are "3" in webhook_log.attempt).
    const { logIds } = await seedDelivery(running.db, resent, [
      { status: 500, createdAt: at(0), nextAttemptAt: at(1) },
      { status: 500, createdAt: at(1), nextAttemptAt: at(16) },
      { status: 200, createdAt: at(5), attempt: 3, manual: true },
      { status: 200, createdAt: at(16), attempt: 3 },
    ]);
    for (const limit of [100, 1]) {
      const shown: Array<{ id: string; attempt: number }> = [];
      let cursor: string | null = null;
      do {
        const page: { body: { data: Array<{ id: string; attempt: number }>; nextCursor: string | null } } =
          await client.get(`/api/webhooks/${resent.id}/logs?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
        shown.push(...page.body.data.map((e) => ({ id: e.id, attempt: e.attempt })));
        cursor = page.body.nextCursor;
      } while (cursor);
      expect(shown).toEqual([
        { id: logIds[3], attempt: 4 },
        { id: logIds[2], attempt: 3 },
        { id: logIds[1], attempt: 2 },
        { id: logIds[0], attempt: 1 },
      ]);
    }
  });

  it('pages by keyset without gaps or repeats, even when attempts share a timestamp', async () => {
    const other = await client.post('/api/webhooks', { name: 'Paged', url: PUBLIC_URL, events: ['transaction'] });
    const paged = { id: other.body.id, merchantId: client.merchantId, url: PUBLIC_URL };
    const same = new Date(tenOClockDaysAgo(2) + 123);
    const seeded: string[] = [];
    for (let i = 0; i < 5; i += 1)
      seeded.push(
        ...(
          await seedDelivery(running.db, paged, [
            { status: 500, createdAt: same },
            { status: 200, createdAt: new Date(same.getTime() + i) },
          ])
        ).logIds,
      );
    // Microsecond timestamps, as PostgreSQL's now() writes them: a millisecond cursor would skip these.
    await running.db.query(
      `UPDATE webhook_log SET created_at = created_at + make_interval(secs => random() / 1000) WHERE webhook_id = $1 AND status = 500`,
      [paged.id],
    );

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const answer: Answer = await client.get(
        `/api/webhooks/${paged.id}/logs?limit=3${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(answer.status).toBe(200);
      expect(answer.body.data.length).toBeLessThanOrEqual(3);
      seen.push(...answer.body.data.map((e: { id: string }) => e.id));
      cursor = answer.body.nextCursor;
      pages += 1;
    } while (cursor);
    expect(pages).toBe(4);
    expect(new Set(seen).size).toBe(10);
    expect(seen.sort()).toEqual([...seeded].sort());
    const all = (await client.get(`/api/webhooks/${paged.id}/logs?limit=100`)).body.data;
    const times = all.map((e: { createdAt: string }) => e.createdAt);
    expect(times).toEqual([...times].sort().reverse());
  });

  it('filters by outcome: delivered = 2xx, failed = everything else, skipped and superseded without a status', async () => {
    const base = tenOClockDaysAgo(3);
    await seedDelivery(
      running.db,
      webhook,
      [301, 302, 403, 404, 500].map((status, i) => ({ status, createdAt: new Date(base + i * 1000) })),
    );
    await seedDelivery(running.db, webhook, [
      { status: null, outcome: 'skipped', createdAt: new Date(base + 10_000), durationMs: 0 },
    ]);
    const outcome = async (value: string) =>
      (await client.get(`/api/webhooks/${webhook.id}/logs?outcome=${value}&limit=100`)).body.data as Array<{
        outcome: string;
        status: number | null;
      }>;
    const delivered = await outcome('delivered');
    expect(delivered.length).toBeGreaterThan(0);
    expect(delivered.every((e) => e.outcome === 'delivered' && e.status! >= 200 && e.status! < 300)).toBe(true);
    const failed = await outcome('failed');
    expect(failed.every((e) => e.outcome === 'failed')).toBe(true);
    expect(failed.map((e) => e.status).sort()).toEqual([0, 301, 302, 403, 404, 500]);
    expect(await outcome('skipped')).toEqual([expect.objectContaining({ outcome: 'skipped', status: null })]);
    expect(await outcome('superseded')).toEqual([]);
  });

  it("finds an order's attempts by its referenceId, a subject's by its id, an event type's, and filters combined", async () => {
    const other = await client.post('/api/webhooks', { name: 'Searched', url: PUBLIC_URL, events: ['transaction'] });
    const searched = { id: other.body.id, merchantId: client.merchantId, url: PUBLIC_URL };
    const base = tenOClockDaysAgo(2);
    const at = (s: number) => new Date(base + s * 1000);
    const order1001 = await seedDelivery(
      running.db,
      searched,
      [
        { status: 500, createdAt: at(0) },
        { status: 200, createdAt: at(60) },
      ],
      undefined,
      { referenceId: '1001' },
    );
    const order1002 = await seedDelivery(running.db, searched, [{ status: 200, createdAt: at(10) }], undefined, {
      referenceId: '1002',
    });
    const subscription = await seedDelivery(running.db, searched, [{ status: 404, createdAt: at(20) }], undefined, {
      type: 'subscription',
      referenceId: '1001',
    });
    const ids = async (query: string) => {
      const answer = await client.get(`/api/webhooks/${searched.id}/logs?${query}`);
      expect([query, answer.status]).toEqual([query, 200]);
      return (answer.body.data as Array<{ id: string }>).map((entry) => entry.id);
    };
    // Newest first, like the unfiltered log.
    expect(await ids('referenceId=1001')).toEqual([order1001.logIds[1], subscription.logIds[0], order1001.logIds[0]]);
    expect(await ids('referenceId=1001&eventType=transaction')).toEqual([...order1001.logIds].reverse());
    expect(await ids('referenceId=1001&outcome=failed')).toEqual([subscription.logIds[0], order1001.logIds[0]]);
    expect(await ids(`subject=${order1002.uuid}`)).toEqual(order1002.logIds);
    expect(await ids('eventType=subscription')).toEqual(subscription.logIds);
    expect(await ids('referenceId=9999')).toEqual([]);
    const [entry] = (await client.get(`/api/webhooks/${searched.id}/logs?subject=${order1002.uuid}`)).body.data;
    expect(entry.request).toMatchObject({ uuid: order1002.uuid, referenceId: '1002' });
    // A filter pages like the whole log: the cursor goes on within the same filter.
    const first = await client.get(`/api/webhooks/${searched.id}/logs?referenceId=1001&limit=2`);
    const rest = await client.get(
      `/api/webhooks/${searched.id}/logs?referenceId=1001&limit=2&cursor=${first.body.nextCursor}`,
    );
    expect([...first.body.data, ...rest.body.data].map((entry: { id: string }) => entry.id)).toEqual(
      await ids('referenceId=1001'),
    );
    expect(rest.body.nextCursor).toBeNull();
  });

  it('names the field of a bad query, with one true message each', async () => {
    const limit = [{ field: 'limit', message: 'must be a whole number from 1 to 100' }];
    const cursor = [{ field: 'cursor', message: 'must be the nextCursor of a previous page' }];
    const once = (field: string) => [{ field, message: 'must be given only once' }];
    for (const [query, errors] of [
      ['limit=0', limit],
      ['limit=101', limit],
      ['limit=ten', limit],
      ['limit=x', limit],
      ['cursor=garbage', cursor],
      // Well-formed cursors of timestamps that do not exist (PostgreSQL would refuse to cast them).
      ...['2026-13-45 10:00:00+00', '2026-02-30 10:00:00+00', '2026-11-22 10:00:00+99'].map(
        (createdAt) =>
          [`cursor=${Buffer.from(JSON.stringify([createdAt, randomUUID()])).toString('base64url')}`, cursor] as const,
      ),
      ['outcome=maybe', [{ field: 'outcome', message: 'must be one of delivered, failed, skipped, superseded' }]],
      ['outcome=success', [{ field: 'outcome', message: 'must be one of delivered, failed, skipped, superseded' }]],
      ['eventType=refund', [{ field: 'eventType', message: `must be one of ${KINDS}` }]],
      [
        'subject=order-1001',
        [{ field: 'subject', message: 'must be a transaction uuid or a subscription or payout id' }],
      ],
      [`referenceId=${'x'.repeat(256)}`, [{ field: 'referenceId', message: 'must be text of 1 to 255 characters' }]],
      ['referenceId=', [{ field: 'referenceId', message: 'must be text of 1 to 255 characters' }]],
      ['limit=2&limit=3', once('limit')],
      ['outcome=delivered&outcome=failed&limit=ten', [...once('outcome'), ...limit]],
    ] as const) {
      const answer = await client.get(`/api/webhooks/${webhook.id}/logs?${query}`);
      expect([query, answer.status, answer.body.errors]).toEqual([query, 400, errors]);
    }
  });

  it('is empty for a new webhook and 404 for an unknown one', async () => {
    const fresh = await client.post('/api/webhooks', { name: 'Fresh', url: PUBLIC_URL, events: ['payout'] });
    expect((await client.get(`/api/webhooks/${fresh.body.id}/logs`)).body).toEqual({ data: [], nextCursor: null });
    expect((await client.get(`/api/webhooks/${randomUUID()}/logs`)).status).toBe(404);
  });
});
