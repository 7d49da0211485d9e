import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { testEnv } from '#testing';
import pg from 'pg';
import { dropDatabase, ensureDatabase, migrate, revert } from './database.js';
import { MIGRATIONS } from './migrations/index.js';

/** Every table the apps own (their schemas' tables, in public before AppSchemasAndRoles). */
const OWNED_TABLES = [
  'merchant',
  'integration',
  'transaction',
  'subscription',
  'payout',
  'outbox_event',
  'webhook',
  'webhook_secret',
  'backend_user',
  'backend_session',
  'login_failure',
  'webhook_delivery',
  'webhook_log',
];

/** A merchant with a webhook, one delivery of it and that delivery's log entry; returns the webhook's id. */
async function insertWebhookWithLoggedDelivery(client: pg.Client): Promise<string> {
  const { rows } = await client.query<{ webhook: string }>(
    `WITH m AS (INSERT INTO merchant (id, name) VALUES (gen_random_uuid(), 'M') RETURNING id),
          w AS (INSERT INTO webhook (id, merchant_id, name, url, content_type, version, retry_on_error, events)
                SELECT gen_random_uuid(), id, 'W', 'https://example.com/h', 'json', '2026-08-20', true, '{transaction}'
                  FROM m RETURNING id),
          d AS (INSERT INTO webhook_delivery (id, webhook_id, merchant_id, event_id, event_type, subject, url,
                                              content_type, version, retry_on_error, body)
                SELECT gen_random_uuid(), w.id, m.id, gen_random_uuid(), 'transaction.created', '{}',
                       'https://example.com/h', 'json', '2026-08-20', true, '\\x7b7d'
                  FROM w, m RETURNING id, webhook_id, event_id),
          l AS (INSERT INTO webhook_log (id, delivery_id, webhook_id, attempt, event_type, event_id, request,
                                         outcome, status, duration_ms)
                SELECT gen_random_uuid(), d.id, d.webhook_id, 1, 'transaction.created', d.event_id, '{}',
                       'delivered', 200, 5
                  FROM d RETURNING webhook_id)
     SELECT webhook_id AS webhook FROM l`,
  );
  return rows[0].webhook;
}

/** Runs against a scratch database of its own on the run's server, so the shared run database stays migrated. */
describe('migrations (real PostgreSQL)', () => {
  const url = testEnv().databaseUrl.replace(/\/([^/?]+)(\?|$)/, '/$1_roundtrip$2');
  /** Every table and view, as `schema.name`. */
  const tables = async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query<{ name: string }>(
        `SELECT table_schema || '.' || table_name AS name FROM information_schema.tables
          WHERE table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1`,
      );
      return rows.map((row) => row.name);
    } finally {
      await client.end();
    }
  };

  beforeAll(async () => {
    await dropDatabase(url);
  });
  afterAll(async () => {
    await dropDatabase(url);
  });

  it('creates the database once, then reports it exists', async () => {
    expect(await ensureDatabase(url)).toBe(true);
    expect(await ensureDatabase(url)).toBe(false);
  });

  it('applies every migration, and a second run applies nothing', async () => {
    const applied = await migrate(url);
    expect(applied).toEqual(MIGRATIONS.map((migration) => new migration().name));
    expect(await tables()).toEqual(
      expect.arrayContaining(['payments.merchant', 'backend.webhook', 'delivery.webhook_log', 'public.migrations']),
    );
    expect(await migrate(url)).toEqual([]);
  });

  it('reverts every migration down to an empty schema and applies them again (round trip)', async () => {
    // Asked for more than are applied, it reverts what there is and says which.
    expect(await revert(url, MIGRATIONS.length + 3)).toEqual(MIGRATIONS.map((m) => new m().name).reverse());
    expect(await tables()).toEqual(['public.migrations']);
    expect(await revert(url, 1)).toEqual([]);
    expect(await migrate(url)).toHaveLength(MIGRATIONS.length);
    expect(await tables()).toEqual(expect.arrayContaining(['payments.merchant', 'payments.integration']));
  });

  it('gives the log entries written before outcomes their outcome from their status, and back', async () => {
    const name = 'LogOutcomeAndSearch1763801800000';
    const later = MIGRATIONS.length - MIGRATIONS.findIndex((migration) => new migration().name === name);
    expect((await revert(url, later)).at(-1)).toBe(name);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const webhook = randomUUID();
      await client.query(
        `INSERT INTO webhook_log (id, delivery_id, webhook_id, attempt, event_type, event_id, request, status,
                                  duration_ms)
         SELECT gen_random_uuid(), gen_random_uuid(), $1, 1, 'transaction', gen_random_uuid(), '{}', s, 5
           FROM unnest(ARRAY[200, 204, 299, 0, 301, 404, 500]) AS s`,
        [webhook],
      );
      expect(await migrate(url, { through: name })).toEqual([name]);
      const outcomes = async () =>
        (await client.query(`SELECT status, outcome FROM webhook_log WHERE webhook_id = $1 ORDER BY status`, [webhook]))
          .rows;
      expect(await outcomes()).toEqual([
        { status: 0, outcome: 'failed' },
        { status: 200, outcome: 'delivered' },
        { status: 204, outcome: 'delivered' },
        { status: 299, outcome: 'delivered' },
        { status: 301, outcome: 'failed' },
        { status: 404, outcome: 'failed' },
        { status: 500, outcome: 'failed' },
      ]);
      // An entry that made no request has no status, and only then.
      const insert = (outcome: string, status: number | null) =>
        client.query(
          `INSERT INTO webhook_log (id, delivery_id, webhook_id, attempt, event_type, event_id, request, outcome,
                                    status, duration_ms)
           VALUES (gen_random_uuid(), gen_random_uuid(), $1, 1, 'transaction', gen_random_uuid(), '{}', $2, $3, 0)`,
          [webhook, outcome, status],
        );
      await insert('skipped', null);
      await expect(insert('failed', null)).rejects.toThrow(/webhook_log_outcome_check/);
      await expect(insert('superseded', 500)).rejects.toThrow(/webhook_log_outcome_check/);
      await expect(insert('lost', 500)).rejects.toThrow(/webhook_log_outcome_check/);
      // Down: the older layout has no place for an entry without a request.
      expect(await revert(url, 1)).toEqual([name]);
      expect(
        (await client.query(`SELECT count(*)::int AS n FROM webhook_log WHERE webhook_id = $1`, [webhook])).rows[0].n,
      ).toBe(7);
      expect(await migrate(url, { through: name })).toEqual([name]);
      await client.query(`DELETE FROM webhook_log WHERE webhook_id = $1`, [webhook]);
      expect(await migrate(url)).toHaveLength(later - 1);
    } finally {
      await client.end();
    }
  });

  it("keeps a deleted webhook's deliveries and log: they are the dispatcher's, which deletes them itself", async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const webhook = await insertWebhookWithLoggedDelivery(client);
      const count = async (table: string) =>
        (await client.query(`SELECT count(*)::int AS n FROM ${table} WHERE webhook_id = $1`, [webhook])).rows[0].n;
      expect([await count('webhook_delivery'), await count('webhook_log')]).toEqual([1, 1]);
      // No foreign key at all in the delivery schema: no other app's DELETE reaches its rows, and the log (partitioned
      // by day like the deliveries, and outliving its delivery by days) refers to its delivery by id only.
      const keys = await client.query(
        `SELECT conrelid::regclass::text || ' -> ' || confrelid::regclass::text AS key FROM pg_constraint
          WHERE connamespace = 'delivery'::regnamespace AND contype = 'f'`,
      );
      expect(keys.rows).toEqual([]);
      await client.query('DELETE FROM webhook WHERE id = $1', [webhook]);
      expect([await count('webhook_delivery'), await count('webhook_log')]).toEqual([1, 1]);
      // As the dispatcher does when it learns of it: both, each in its own statements.
      await client.query('DELETE FROM webhook_log WHERE webhook_id = $1', [webhook]);
      await client.query('DELETE FROM webhook_delivery WHERE webhook_id = $1', [webhook]);
      expect([await count('webhook_delivery'), await count('webhook_log')]).toEqual([0, 0]);
    } finally {
      await client.end();
    }
  });

  it('moves populated tables out of their schemas and back (down, then up), rows and keys intact', async () => {
    const client = () => new pg.Client({ connectionString: url });
    const snapshot = async () => {
      const db = client();
      await db.connect();
      try {
        const counts: Record<string, number> = {};
        for (const table of OWNED_TABLES) {
          counts[table] = (await db.query(`SELECT count(*)::int AS n FROM ${table}`)).rows[0].n;
        }
        const { rows } = await db.query<{ schema: string }>(
          `SELECT DISTINCT table_schema AS schema FROM information_schema.tables
            WHERE table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1`,
        );
        const key = await db.query(
          `SELECT 1 FROM pg_constraint WHERE conname = 'webhook_delivery_webhook_id_fkey' AND contype = 'f'`,
        );
        return { counts, schemas: rows.map((row) => row.schema), deliveryToWebhookKey: key.rowCount === 1 };
      } finally {
        await db.end();
      }
    };
    const db = client();
    await db.connect();
    try {
      await insertWebhookWithLoggedDelivery(db);
      // A webhook deleted while the key to it is gone leaves its deliveries behind until the dispatcher deletes them.
      const orphan = await insertWebhookWithLoggedDelivery(db);
      await db.query('DELETE FROM webhook WHERE id = $1', [orphan]);
      await db.query(`INSERT INTO login_failure (key) VALUES ('k')`);
      await db.query(
        `INSERT INTO outbox_event (id, type, subject_id, payload) VALUES (gen_random_uuid(), 'payout.created', gen_random_uuid(), '{}')`,
      );
    } finally {
      await db.end();
    }
    const before = await snapshot();
    expect(before.schemas).toEqual(['backend', 'delivery', 'payments', 'public']);
    expect(before.deliveryToWebhookKey).toBe(false);

    const index = MIGRATIONS.findIndex((migration) => new migration().name === 'AppSchemasAndRoles1763801500000');
    expect((await revert(url, MIGRATIONS.length - index)).at(-1)).toBe('AppSchemasAndRoles1763801500000');
    const down = await snapshot();
    expect(down.schemas).toEqual(['public']);
    expect(down.deliveryToWebhookKey).toBe(true);
    // As the key's ON DELETE CASCADE would have: the deleted webhook's delivery and its log go with the key's return.
    expect(down.counts).toEqual({
      ...before.counts,
      webhook_delivery: before.counts.webhook_delivery - 1,
      webhook_log: before.counts.webhook_log - 1,
    });

    expect(await migrate(url)).toHaveLength(MIGRATIONS.length - index);
    expect(await snapshot()).toEqual({ ...down, schemas: before.schemas, deliveryToWebhookKey: false });
    // And new rows still get their identity values in the moved tables.
    const again = client();
    await again.connect();
    try {
      await again.query(`INSERT INTO login_failure (key) VALUES ('k')`);
    } finally {
      await again.end();
    }
  });

  it('leads an index with every foreign key whose parent can be deleted, so a delete never reads a whole table', async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      // A foreign key's columns must begin some index of the referencing table; otherwise deleting a parent row
      // (ON DELETE CASCADE, or the check that nothing refers to it) scans the whole referencing table.
      const { rows } = await client.query<{ key: string }>(
        `SELECT c.conrelid::regclass::text || '.' || string_agg(a.attname, ',' ORDER BY k.ord) AS key
           FROM pg_constraint c
           CROSS JOIN LATERAL unnest(c.conkey) WITH ORDINALITY AS k(attnum, ord)
           JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum
          WHERE c.contype = 'f' AND c.connamespace::regnamespace::text IN ('payments', 'backend', 'delivery')
            AND NOT EXISTS (
              SELECT 1 FROM pg_index i
               WHERE i.indrelid = c.conrelid AND i.indisvalid AND i.indpred IS NULL
                 AND (i.indkey::int2[])[0:cardinality(c.conkey) - 1] @> c.conkey
                 AND (i.indkey::int2[])[0:cardinality(c.conkey) - 1] <@ c.conkey)
          GROUP BY c.oid, c.conrelid
          ORDER BY 1`,
      );
      expect(rows.map((row) => row.key)).toEqual([
        // Their parents (merchant, backend_user, integration) are never deleted by any of the services.
        'backend_session.merchant_id',
        'backend_session.user_id',
        'subscription.integration_id',
        'transaction.integration_id',
        'webhook.integration_id',
      ]);
    } finally {
      await client.end();
    }
  });

  it('lets concurrent migrators serialise on the advisory lock', async () => {
    await revert(url, MIGRATIONS.length);
    const results = await Promise.all([migrate(url), migrate(url), migrate(url)]);
    expect(results.flat()).toHaveLength(MIGRATIONS.length);
  });
});
