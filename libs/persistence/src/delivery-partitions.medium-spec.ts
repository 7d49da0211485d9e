import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUIDv7 } from 'node:crypto';
import { testEnv } from '#testing';
import pg from 'pg';
import { dropDatabase, ensureDatabase, migrate, revert } from './database.js';

const DAY_MS = 86_400_000;
const NAME = 'DeliveryPartitions1763801700000';
/** The UTC day of an instant, as the partitions are named: `20261126`. */
const dayName = (time: number) => new Date(time).toISOString().slice(0, 10).replaceAll('-', '');

/**
 * The migration DeliveryPartitions on a populated database: the delivery tables as they were (one table each, the
 * log's foreign key to its delivery) become day partitions with every row in its day, and back.
 */
describe('migration DeliveryPartitions (real PostgreSQL, populated)', () => {
  const url = testEnv().databaseUrl.replace(/\/([^/?]+)(\?|$)/, '/$1_partitions$2');
  let client: pg.Client;
  const now = Date.now();
  /** Noon (UTC) of the days with rows: today, 3 days ago, 45 days ago (beyond the default retention). */
  const days = [0, 3, 45].map((back) => Math.floor(now / DAY_MS) * DAY_MS + DAY_MS / 2 - back * DAY_MS);
  const webhookId = randomUUIDv7();

  const query = async <T extends pg.QueryResultRow>(text: string, values: unknown[] = []) =>
    (await client.query<T>(text, values)).rows;
  const count = async (table: string) => (await query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`))[0].n;

  beforeAll(async () => {
    await dropDatabase(url);
    await ensureDatabase(url);
    await migrate(url, { through: NAME });
    // Back to the layout before it, and populate that.
    expect(await revert(url, 1)).toEqual([NAME]);
    client = new pg.Client({ connectionString: url });
    await client.connect();
    const merchantId = randomUUIDv7();
    await query(`INSERT INTO merchant (id, name) VALUES ($1, 'M')`, [merchantId]);
    await query(
      `INSERT INTO webhook (id, merchant_id, name, url, content_type, version, retry_on_error, events)
       VALUES ($1, $2, 'W', 'https://example.com/h', 'json', '2026-08-20', true, '{transaction}')`,
      [webhookId, merchantId],
    );
    // 300 deliveries a day with two attempts each, the second a day later (a repeat across midnight, or a resend).
    for (const day of days) {
      await query(
        `WITH d AS (
           INSERT INTO webhook_delivery (id, webhook_id, merchant_id, event_id, event_type, subject, url, content_type,
                                         version, retry_on_error, body, created_at, manual_attempts, last_manual_attempt)
           SELECT gen_random_uuid(), $1, $2, gen_random_uuid(), 'transaction', '{"uuid":"x"}', 'https://example.com/h',
                  'json', '2026-08-20', true, convert_to(repeat('{"transaction":{}}', 40), 'UTF8'),
                  $3::timestamptz + i * interval '1 s', i % 2, i % 2
             FROM generate_series(1, 300) AS i
           RETURNING id, webhook_id, event_id, created_at)
         INSERT INTO webhook_log (id, delivery_id, webhook_id, attempt, event_type, event_id, request, status,
                                  duration_ms, created_at, next_attempt_at, manual)
         SELECT gen_random_uuid(), d.id, d.webhook_id, a, 'transaction', d.event_id, '{"uuid":"x"}',
                CASE a WHEN 1 THEN 500 ELSE 200 END, 12, d.created_at + (a - 1) * interval '1 day',
                CASE a WHEN 1 THEN d.created_at + interval '1 day' END, false
           FROM d, generate_series(1, 2) AS a`,
        [webhookId, merchantId, new Date(day)],
      );
    }
  });
  afterAll(async () => {
    await client?.end();
    await dropDatabase(url);
  });

  /** Every row of a table, in a comparable form. */
  const rowsOf = (table: string) =>
    query(`SELECT to_jsonb(t) AS row FROM ${table} t ORDER BY created_at, id`).then((rows) =>
      rows.map((row) => row.row),
    );

  it('moves every row into the day partition of its created_at, keeping every column, and back again', async () => {
    const before = { deliveries: await rowsOf('webhook_delivery'), log: await rowsOf('webhook_log') };
    expect([before.deliveries.length, before.log.length]).toEqual([900, 1800]);

    expect(await migrate(url, { through: NAME })).toEqual([NAME]);
    expect({ deliveries: await rowsOf('webhook_delivery'), log: await rowsOf('webhook_log') }).toEqual(before);
    for (const table of ['webhook_delivery', 'webhook_log']) {
      const misplaced = await query(
        `SELECT c.relname AS partition, t.created_at FROM ${table} t JOIN pg_class c ON c.oid = t.tableoid
          WHERE c.relname <> '${table}_p' || to_char(t.created_at AT TIME ZONE 'UTC', 'YYYYMMDD')`,
      );
      expect({ table, misplaced }).toEqual({ table, misplaced: [] });
    }
    // A partition for every day with rows, for the default retention's days back and a week ahead; none other.
    const partitions = (await query<{ name: string }>(`SELECT name FROM delivery.day_partitions()`)).map((r) => r.name);
    const expected = new Set<string>();
    for (let back = -7; back <= 31; back += 1) expected.add(dayName(now - back * DAY_MS));
    for (const day of days) [0, 1].forEach((later) => expected.add(dayName(day + later * DAY_MS)));
    for (const table of ['webhook_delivery', 'webhook_log']) {
      expect(partitions.filter((name) => name.startsWith(`${table}_p`)).sort()).toEqual(
        [...expected].sort().map((day) => `${table}_p${day}`),
      );
    }

    expect(await revert(url, 1)).toEqual([NAME]);
    expect({ deliveries: await rowsOf('webhook_delivery'), log: await rowsOf('webhook_log') }).toEqual(before);
    const kinds = await query(
      `SELECT relname, relkind FROM pg_class WHERE relnamespace = 'delivery'::regnamespace AND relkind IN ('r', 'p')
        ORDER BY 1`,
    );
    expect(kinds).toEqual([
      { relname: 'webhook_delivery', relkind: 'r' },
      { relname: 'webhook_log', relkind: 'r' },
    ]);
    const keys = await query(
      `SELECT conname, pg_get_constraintdef(oid) AS def FROM pg_constraint
        WHERE connamespace = 'delivery'::regnamespace ORDER BY conname`,
    );
    expect(keys).toEqual([
      { conname: 'webhook_delivery_pkey', def: 'PRIMARY KEY (id)' },
      { conname: 'webhook_delivery_webhook_id_event_id_key', def: 'UNIQUE (webhook_id, event_id)' },
      { conname: 'webhook_log_attempt_check', def: 'CHECK ((attempt >= 1))' },
      {
        conname: 'webhook_log_delivery_id_fkey',
        def: expect.stringMatching(
          /^FOREIGN KEY \(delivery_id\) REFERENCES (delivery\.)?webhook_delivery\(id\) ON DELETE CASCADE$/,
        ),
      },
      { conname: 'webhook_log_pkey', def: 'PRIMARY KEY (id)' },
    ]);
  });

  it('keys each table on (id, created_at), one delivery per (webhook, event, created_at), and the log by webhook', async () => {
    await migrate(url, { through: NAME });
    const keys = await query(
      `SELECT c.relname AS "table", i.relname AS index, pg_get_indexdef(i.oid) LIKE 'CREATE UNIQUE%' AS "unique",
              regexp_replace(pg_get_indexdef(i.oid), '.* USING btree ', '') AS columns
         FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class c ON c.oid = x.indrelid
        WHERE c.relnamespace = 'delivery'::regnamespace AND c.relkind = 'p' ORDER BY 1, 2`,
    );
    expect(keys).toEqual([
      { table: 'webhook_delivery', index: 'webhook_delivery_pkey', unique: true, columns: '(id, created_at)' },
      {
        table: 'webhook_delivery',
        index: 'webhook_delivery_webhook_id_event_id_created_at_key',
        unique: true,
        columns: '(webhook_id, event_id, created_at)',
      },
      { table: 'webhook_log', index: 'webhook_log_delivery_idx', unique: false, columns: '(delivery_id, attempt)' },
      { table: 'webhook_log', index: 'webhook_log_pkey', unique: true, columns: '(id, created_at)' },
      {
        table: 'webhook_log',
        index: 'webhook_log_webhook_idx',
        unique: false,
        columns: '(webhook_id, created_at DESC, id DESC)',
      },
    ]);
    // Every partition has all of them (the ones created later too: create_day_partitions copies the parent).
    const [{ missing }] = await query<{ missing: number }>(
      `SELECT count(*)::int AS missing FROM delivery.day_partitions() p
        WHERE (SELECT count(*) FROM pg_index x WHERE x.indrelid = ('delivery.' || p.name)::regclass)
              <> CASE p.parent WHEN 'webhook_delivery' THEN 2 ELSE 3 END`,
    );
    expect(missing).toBe(0);
  });

  it('reads a delivery by id and created_at range in the one partition of its day, through its index', async () => {
    const [delivery] = await query<{ id: string; created_at: Date }>(
      `SELECT id, created_at FROM webhook_delivery ORDER BY created_at LIMIT 1`,
    );
    const plan = (
      await query<{ 'QUERY PLAN': string }>(
        `EXPLAIN (COSTS OFF) SELECT body FROM webhook_delivery WHERE id = $1 AND created_at BETWEEN $2 AND $3`,
        [
          delivery.id,
          new Date(delivery.created_at.getTime() - 3_600_000),
          new Date(delivery.created_at.getTime() + 60_000),
        ],
      )
    )
      .map((row) => row['QUERY PLAN'])
      .join('\n');
    const day = dayName(delivery.created_at.getTime());
    expect(plan).toContain(`on webhook_delivery_p${day} `);
    expect(plan.match(/webhook_delivery_p\d{8}/g)?.filter((name) => !name.endsWith(day))).toEqual([]);
    expect(plan).not.toContain('Seq Scan');
  });

  it('drops, going down, the log entries whose delivery is gone (the foreign key comes back)', async () => {
    await query(
      `INSERT INTO webhook_log (id, delivery_id, webhook_id, attempt, event_type, event_id, request, status, duration_ms)
       VALUES (gen_random_uuid(), gen_random_uuid(), $1, 3, 'transaction', gen_random_uuid(), '{}', 500, 5)`,
      [webhookId],
    );
    const log = await count('webhook_log');
    expect(await revert(url, 1)).toEqual([NAME]);
    expect(await count('webhook_log')).toBe(log - 1);
    expect(await migrate(url, { through: NAME })).toEqual([NAME]);
    expect(await count('webhook_log')).toBe(log - 1);
  });
});
