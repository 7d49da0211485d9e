import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { testEnv } from '#testing';
import pg from 'pg';
import { dropDatabase, ensureDatabase, migrate, revert } from './database.js';
import { MIGRATIONS } from './migrations/index.js';

/** Runs against a scratch database of its own on the run's server, so the shared run database stays migrated. */
describe('migrations (real PostgreSQL)', () => {
  const url = testEnv().databaseUrl.replace(/\/([^/?]+)(\?|$)/, '/$1_roundtrip$2');
  const tables = async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query<{ table_name: string }>(
        `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name`,
      );
      return rows.map((row) => row.table_name);
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
    expect(await tables()).toEqual(expect.arrayContaining(['merchant', 'integration', 'migrations']));
    expect(await migrate(url)).toEqual([]);
  });

  it('reverts every migration down to an empty schema and applies them again (round trip)', async () => {
    // Asked for more than are applied, it reverts what there is and says which.
    expect(await revert(url, MIGRATIONS.length + 3)).toEqual(MIGRATIONS.map((m) => new m().name).reverse());
    expect(await tables()).toEqual(['migrations']);
    expect(await revert(url, 1)).toEqual([]);
    expect(await migrate(url)).toHaveLength(MIGRATIONS.length);
    expect(await tables()).toEqual(expect.arrayContaining(['merchant', 'integration']));
  });

  it("deletes a webhook's deliveries and their log with the webhook", async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
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
                                             status, duration_ms)
                    SELECT gen_random_uuid(), d.id, d.webhook_id, 1, 'transaction.created', d.event_id, '{}', 200, 5
                      FROM d RETURNING webhook_id)
         SELECT webhook_id AS webhook FROM l`,
      );
      const webhook = rows[0].webhook;
      const count = async (table: string) =>
        (await client.query(`SELECT count(*)::int AS n FROM ${table} WHERE webhook_id = $1`, [webhook])).rows[0].n;
      expect([await count('webhook_delivery'), await count('webhook_log')]).toEqual([1, 1]);
      const keys = await client.query(
        `SELECT confrelid::regclass::text AS target FROM pg_constraint WHERE conrelid = 'webhook_log'::regclass AND contype = 'f'`,
      );
      expect(keys.rows.map((row) => row.target)).toEqual(['webhook_delivery']); // not webhook: through the delivery
      await client.query('DELETE FROM webhook WHERE id = $1', [webhook]);
      expect([await count('webhook_delivery'), await count('webhook_log')]).toEqual([0, 0]);
    } finally {
      await client.end();
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
          WHERE c.contype = 'f' AND c.connamespace = 'public'::regnamespace
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
