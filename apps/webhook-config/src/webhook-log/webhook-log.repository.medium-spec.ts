import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { dataSourceOptions } from '#persistence';
import { insertWebhook, testEnv, uuidV7At } from '#testing';
import { DataSource } from 'typeorm';
import { seedDeliveryRow, tenOClockDaysAgo } from '../../test/support/log-seed.js';
import { WebhookLogRepository, type LoggedAttempt, type PageOptions } from './webhook-log.repository.js';
import { WebhookLogEntity } from './webhook-log.entity.js';

describe('WebhookLogRepository (real PostgreSQL)', () => {
  let db: DataSource;
  let logs: WebhookLogRepository;
  let webhookId: string;
  /** When the seeded attempts begin: four days ago. */
  const base = new Date(tenOClockDaysAgo(4));

  beforeAll(async () => {
    db = new DataSource(dataSourceOptions({ url: testEnv().databaseUrl, entities: [WebhookLogEntity], poolSize: 2 }));
    await db.initialize();
    logs = new WebhookLogRepository(db.getRepository(WebhookLogEntity));
    const merchantId = randomUUID();
    webhookId = randomUUID();
    await db.query(`INSERT INTO merchant (id, name) VALUES ($1, 'Logs')`, [merchantId]);
    await insertWebhook(db, { id: webhookId, merchantId, url: 'https://93.184.215.14/' });
    const { deliveryId } = await seedDeliveryRow(
      db,
      { id: webhookId, merchantId, url: 'https://93.184.215.14/' },
      base,
    );
    const deliveryIds = [deliveryId, ...Array.from({ length: 199 }, () => uuidV7At(base.getTime()))];
    // 2,000 attempts of 200 deliveries over a few seconds, many sharing a microsecond timestamp.
    await db.query(
      `INSERT INTO webhook_log (id, delivery_id, webhook_id, attempt, event_type, event_id, request, outcome, status, duration_ms, created_at)
       SELECT gen_random_uuid(), ($1::uuid[])[1 + i % 200], $2, 1 + i / 200, 'transaction', gen_random_uuid(), '{"url":"u","contentType":"json","version":"v","psp":null,"type":null,"uuid":"x"}',
              CASE WHEN i % 3 = 0 THEN 'failed' ELSE 'delivered' END, CASE WHEN i % 3 = 0 THEN 500 ELSE 200 END, 10,
              $3::timestamptz + make_interval(secs => (i / 4) * 0.000137)
         FROM generate_series(1, 2000) AS i`,
      [deliveryIds, webhookId, base],
    );
    await db.query('ANALYZE webhook_log');
  });
  afterAll(async () => {
    await db.destroy();
  });

  it('walks every entry exactly once, newest first, through pages of any size', async () => {
    for (const limit of [1, 7, 100]) {
      const seen: LoggedAttempt[] = [];
      let after;
      for (;;) {
        const page = await logs.page(webhookId, { limit, after });
        seen.push(...page.rows);
        if (!page.next) break;
        after = page.next;
        if (limit === 1 && seen.length >= 300) break; // enough to prove the point at page size 1
      }
      if (limit !== 1) expect(seen).toHaveLength(2000);
      // Each entry's place among its delivery's entries, oldest first: 1 to 10 for each of the 200 deliveries.
      if (limit !== 1) {
        const places = new Map<string, number[]>();
        for (const row of [...seen].reverse())
          places.set(row.deliveryId, [...(places.get(row.deliveryId) ?? []), row.ordinal]);
        expect(new Set([...places.values()].map((list) => list.join(',')))).toEqual(new Set(['1,2,3,4,5,6,7,8,9,10']));
      }
      expect(new Set(seen.map((row) => row.id)).size).toBe(seen.length);
      for (let i = 1; i < seen.length; i += 1)
        expect(seen[i - 1].createdAt.getTime()).toBeGreaterThanOrEqual(seen[i].createdAt.getTime());
    }
  });

  it('filters by outcome within the keyset', async () => {
    const failures: WebhookLogEntity[] = [];
    let after;
    do {
      const page = await logs.page(webhookId, { limit: 50, after, outcome: 'failed' });
      failures.push(...page.rows);
      after = page.next ?? undefined;
    } while (after);
    expect(failures).toHaveLength(666);
    expect(failures.every((row) => row.status === 500)).toBe(true);
  });

  it('reads a deep page through the (webhook_id, created_at, id) index of the days it needs, not by counting past earlier rows', async () => {
    const [deep] = await db.query(
      `SELECT created_at::text AS "createdAt", id FROM webhook_log WHERE webhook_id = $1 ORDER BY created_at, id LIMIT 1 OFFSET 1000`,
      [webhookId],
    );
    const explain = async (days: { from: Date } | { before: Date }) => {
      const [sql, parameters] = logs
        .pageQuery(webhookId, { limit: 20, after: deep }, days)
        .limit(21)
        .getQueryAndParameters();
      const plan: Array<{ 'QUERY PLAN': string }> = await db.query(
        `EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ${sql}`,
        parameters,
      );
      return plan.map((row) => row['QUERY PLAN']).join('\n');
    };
    const day = (time: number) => new Date(time).toISOString().slice(0, 10).replaceAll('-', '');
    const cursorDay = day(base.getTime());
    const windowStart = new Date(base.getTime() - 2 * 86_400_000);
    // First the two days before the cursor: only their partitions are planned, and the cursor's day fills the page.
    const recent = await explain({ from: windowStart });
    expect(recent).not.toMatch(/Seq Scan|Sort/);
    const scans = [
      ...recent.matchAll(
        /Index Scan using webhook_log_p(\d{8})_webhook_id_created_at_id_idx on \S+ \S+( \(never executed\))?/g,
      ),
    ];
    expect(scans.map(([, scanned]) => scanned).sort()).toEqual(
      [day(windowStart.getTime()), day(windowStart.getTime() + 86_400_000), cursorDay].sort(),
    );
    for (const [, scanned, never] of scans)
      expect({ scanned, read: !never }).toEqual({ scanned, read: scanned === cursorDay });
    // The cursor bounds the index scan itself (an Index Cond, not a Filter over earlier rows).
    expect(recent).toMatch(
      /Index Cond: \(\(webhook_id = .*\) AND \(created_at <= .*\) AND \(created_at >= .*\) AND \(ROW\(created_at, id\) < ROW\(/,
    );
    // Older days only when those did not fill it: none of the window's. (Here they are empty, so PostgreSQL may
    // rightly scan them whole.)
    const older = await explain({ before: windowStart });
    expect(
      [...older.matchAll(/on webhook_log_p(\d{8}) /g)].every(([, scanned]) => scanned <= day(windowStart.getTime())),
    ).toBe(true);
  });
});

describe('WebhookLogRepository search (real PostgreSQL)', () => {
  let db: DataSource;
  let logs: WebhookLogRepository;
  const webhookId = randomUUID();
  const subjects = Array.from({ length: 100 }, () => randomUUID());
  const at = new Date(tenOClockDaysAgo(1));
  /** Entry i: outcome by i % 3, event type by i % 5, subject i % 100, referenceId order-(i % 300) (payouts: none). */
  const outcomeOf = (i: number) => ['delivered', 'failed', 'skipped'][i % 3];
  const typeOf = (i: number) => (i % 5 === 0 ? 'payout' : i % 5 === 1 ? 'subscription' : 'transaction');
  const entries = Array.from({ length: 3000 }, (_, i) => i);

  beforeAll(async () => {
    db = new DataSource(dataSourceOptions({ url: testEnv().databaseUrl, entities: [WebhookLogEntity], poolSize: 2 }));
    await db.initialize();
    logs = new WebhookLogRepository(db.getRepository(WebhookLogEntity));
    await db.query(
      `INSERT INTO webhook_log (id, delivery_id, webhook_id, attempt, event_type, event_id, request, outcome, status,
                                duration_ms, created_at)
       SELECT gen_random_uuid(), gen_random_uuid(), $1, 1,
              CASE i % 5 WHEN 0 THEN 'payout' WHEN 1 THEN 'subscription' ELSE 'transaction' END, gen_random_uuid(),
              jsonb_build_object('url', 'u', 'uuid', ($2::text[])[1 + i % 100],
                                 'referenceId', CASE WHEN i % 5 = 0 THEN NULL ELSE 'order-' || (i % 300) END),
              (ARRAY['delivered', 'failed', 'skipped'])[1 + i % 3],
              CASE i % 3 WHEN 0 THEN 200 WHEN 1 THEN 500 END, 10, $3::timestamptz + i * interval '1 ms'
         FROM generate_series(0, 2999) AS i`,
      [webhookId, subjects, at],
    );
    await db.query('ANALYZE webhook_log');
  });
  afterAll(async () => {
    await db.destroy();
  });

  const all = async (filters: Omit<PageOptions, 'limit' | 'after'>) => {
    const found: LoggedAttempt[] = [];
    let after;
    do {
      const page = await logs.page(webhookId, { limit: 100, after, ...filters });
      found.push(...page.rows);
      after = page.next ?? undefined;
    } while (after);
    return found;
  };
  const expected = (keep: (i: number) => boolean) => entries.filter(keep).length;

  it('finds exactly the entries of each filter, and of filters combined, newest first', async () => {
    const skipped = await all({ outcome: 'skipped' });
    expect(skipped).toHaveLength(1000);
    expect(skipped.every((row) => row.outcome === 'skipped' && row.status === null)).toBe(true);
    expect(await all({ eventType: 'payout' })).toHaveLength(600);
    const ofSubject = await all({ subject: subjects[7] });
    expect(ofSubject).toHaveLength(30);
    expect(ofSubject.every((row) => row.request.uuid === subjects[7])).toBe(true);
    const order = await all({ referenceId: 'order-7' });
    expect(order).toHaveLength(expected((i) => i % 300 === 7 && i % 5 !== 0));
    expect(order.map((row) => row.createdAt.getTime())).toEqual(
      order.map((row) => row.createdAt.getTime()).sort((a, b) => b - a),
    );
    expect(await all({ referenceId: 'order-7', outcome: 'failed', eventType: 'subscription' })).toHaveLength(
      expected((i) => i % 300 === 7 && outcomeOf(i) === 'failed' && typeOf(i) === 'subscription'),
    );
    expect(await all({ referenceId: 'order-none' })).toEqual([]);
  });

  it.each([
    ['outcome', { outcome: 'failed' as const }, /outcome = /],
    ['eventType', { eventType: 'subscription' }, /event_type = /],
    ['subject', { subject: subjects[3] }, /\(request ->> 'uuid'::text\) = /],
    ['referenceId', { referenceId: 'order-42' }, /\(request ->> 'referenceId'::text\) = /],
  ])(
    'serves a page filtered by %s from its index on the day that holds the entries, not by scanning the day',
    async (_, filter, key) => {
      const [sql, parameters] = logs
        .pageQuery(webhookId, { limit: 20, ...filter }, { from: new Date(at.getTime() - 86_400_000) })
        .limit(21)
        .getQueryAndParameters();
      const lines = (await db.query(`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ${sql}`, parameters)).map(
        (row: { 'QUERY PLAN': string }) => row['QUERY PLAN'],
      );
      // The populated day is read through the filter's index (its key in the Index Cond, beside the webhook); a
      // selective filter's few matches may then be sorted, which costs nothing. The other days hold none of its rows.
      const day = `webhook_log_p${at.toISOString().slice(0, 10).replaceAll('-', '')}`;
      const scan = lines.findIndex((line: string) => line.includes(` on ${day} `));
      expect(lines[scan]).toMatch(/Index Scan using \S+ on /);
      expect(lines[scan + 1]).toMatch(/Index Cond: \(\(webhook_id = /);
      expect(lines[scan + 1]).toMatch(key);
    },
  );
});
