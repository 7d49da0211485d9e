import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes, randomUUID } from 'node:crypto';
import { testEnv } from '#testing';
import pg from 'pg';
import { DataSource } from 'typeorm';
import {
  dataSourceOptions,
  TRANSACTION_API_DATABASE,
  WEBHOOK_CONFIG_DATABASE,
  WEBHOOK_DISPATCHER_DATABASE,
  type AppDatabaseRole,
} from './data-source.options.js';

/** The rows others refer to. */
type Ids = {
  merchant: string;
  webhook: string;
  delivery: string;
  user: string;
  notice: string;
  recover: string;
  cliSession: string;
};
/** The tables of the rows others refer to. */
const REFERRED: Record<string, keyof Ids> = {
  merchant: 'merchant',
  webhook: 'webhook',
  webhook_delivery: 'delivery',
  backend_user: 'user',
  webhook_notice: 'notice',
  webhook_recover: 'recover',
  cli_session: 'cliSession',
};
/** A new row's id: the one others are told to refer to, or a new one. */
const idOf = (table: string, ids: Ids) => (REFERRED[table] ? ids[REFERRED[table]] : randomUUID());

/** One row of each table, inserted as its owner writes it; `$1` is the row's id, `ids` the rows it refers to. */
/** Per table: the row's key, how to insert one, and (`touch`, default `created_at = created_at`) an update. */
const ROWS: Record<
  string,
  { key: string; insert: string; values: (id: string, ids: Ids) => unknown[]; touch?: string }
> = {
  merchant: { key: 'id', insert: `INSERT INTO merchant (id, name) VALUES ($1, 'M')`, values: (id) => [id] },
  integration: {
    key: 'id',
    insert: `INSERT INTO integration (id, merchant_id, name, api_key_hash, api_key_prefix) VALUES ($1, $2, 'I', $3, 'pk')`,
    values: (id, ids) => [id, ids.merchant, randomBytes(32)],
  },
  transaction: {
    key: 'uuid',
    insert: `INSERT INTO transaction (uuid, merchant_id, status, psp, type, payment_method, amount, currency,
               creation_fingerprint, created_at, updated_at)
             VALUES ($1, $2, 'confirmed', 'psp', 'e-commerce', 'visa', 100, 'CHF', '\\x00', date_trunc('milliseconds', now()),
                     date_trunc('milliseconds', now()))`,
    values: (id, ids) => [id, ids.merchant],
  },
  subscription: {
    key: 'id',
    insert: `INSERT INTO subscription (id, merchant_id, amount, currency, interval, status, created_at, updated_at)
             VALUES ($1, $2, 100, 'CHF', 'month', 'active', now(), now())`,
    values: (id, ids) => [id, ids.merchant],
  },
  payout: {
    key: 'id',
    insert: `INSERT INTO payout (id, merchant_id, amount, currency, status, created_at) VALUES ($1, $2, 100, 'CHF', 'paid', now())`,
    values: (id, ids) => [id, ids.merchant],
  },
  outbox_event: {
    key: 'id',
    insert: `INSERT INTO outbox_event (id, type, subject_id, payload) VALUES ($1, 'payout.created', $1, '{}')`,
    values: (id) => [id],
  },
  webhook: {
    key: 'id',
    insert: `INSERT INTO webhook (id, merchant_id, name, url, content_type, version, retry_on_error, events)
             VALUES ($1, $2, 'W', 'https://example.com/h', 'json', '2026-08-20', true, '{transaction}')`,
    values: (id, ids) => [id, ids.merchant],
  },
  webhook_secret: {
    key: 'id',
    insert: `INSERT INTO webhook_secret (id, webhook_id, ciphertext) VALUES ($1, $2, '\\x00')`,
    values: (id, ids) => [id, ids.webhook],
  },
  webhook_header: {
    key: 'name',
    insert: `INSERT INTO webhook_header (webhook_id, position, name, ciphertext)
             VALUES ($2, (SELECT count(*) FROM webhook_header WHERE webhook_id = $2), $1, '\\x00')`,
    values: (id, ids) => [id, ids.webhook],
    touch: 'position = position',
  },
  backend_user: {
    key: 'id',
    insert: `INSERT INTO backend_user (id, merchant_id, email, password_hash) VALUES ($1, $2, $3, 'x')`,
    values: (id, ids) => [id, ids.merchant, `${id}@example.com`],
  },
  backend_session: {
    key: 'id',
    insert: `INSERT INTO backend_session (id, token_hash, user_id, merchant_id, expires_at)
             VALUES ($1, $3, $2, $4, now() + interval '1 hour')`,
    values: (id, ids) => [id, ids.user, randomBytes(32), ids.merchant],
  },
  login_failure: {
    key: 'key',
    insert: `INSERT INTO login_failure (key) VALUES ($1)`,
    values: (id) => [id],
  },
  login_known_address: {
    key: 'email',
    insert: `INSERT INTO login_known_address (email, address) VALUES ($1, '192.0.2.1')`,
    values: (id) => [id],
    touch: 'signed_in_at = signed_in_at',
  },
  webhook_notice: {
    key: 'id',
    insert: `INSERT INTO webhook_notice (id, merchant_id, webhook_id, kind, failing_since)
             VALUES ($1, $2, $3, 'failing', now())`,
    values: (id, ids) => [id, ids.merchant, ids.webhook],
  },
  notice_email: {
    key: 'id',
    insert: `INSERT INTO notice_email (id, notice_id, recipient) VALUES ($1, $2, 'owner@example.com')`,
    values: (id, ids) => [id, ids.notice],
  },
  operational_event: {
    key: 'id',
    insert: `INSERT INTO operational_event (id, merchant_id, webhook_id, type, payload)
             VALUES ($1, $2, $3, 'webhook.enabled', '{}')`,
    values: (id, ids) => [id, ids.merchant, ids.webhook],
  },
  cli_session: {
    key: 'id',
    insert: `INSERT INTO cli_session (id, merchant_id, integration_id, events, version, content_type, secret_ciphertext)
             VALUES ($1, $2, $2, '{transaction}', '2026-08-20', 'json', '\\x00')`,
    values: (id, ids) => [id, ids.merchant],
  },
  cli_session_log: {
    key: 'webhook_id',
    insert: `INSERT INTO cli_session_log (session_id, webhook_id, event_id, event_type, subject_id, status, duration_ms)
             VALUES ($2, $1, gen_random_uuid(), 'transaction.created', 'x', 200, 1)`,
    values: (id, ids) => [id, ids.cliSession],
  },
  recover_reported: {
    key: 'recover_id',
    insert: `INSERT INTO recover_reported (recover_id) VALUES ($1)`,
    values: (id) => [id],
    touch: 'recover_id = recover_id',
  },
  webhook_delivery: {
    key: 'id',
    insert: `INSERT INTO webhook_delivery (id, webhook_id, merchant_id, event_id, event_type, subject, url, content_type,
               version, retry_on_error, body)
             VALUES ($1, $2, $3, gen_random_uuid(), 'transaction', '{"uuid":"x"}', 'https://example.com/h', 'json',
                     '2026-08-20', true, '\\x7b7d')`,
    values: (id, ids) => [id, ids.webhook, ids.merchant],
  },
  webhook_delivery_outcome: {
    key: 'delivery_id',
    insert: `INSERT INTO webhook_delivery_outcome (delivery_id, created_at, webhook_id, recoverable, outcome_at)
             VALUES ($1, now(), $2, true, now())`,
    values: (id, ids) => [id, ids.webhook],
    touch: 'recoverable = recoverable',
  },
  webhook_log: {
    key: 'id',
    insert: `INSERT INTO webhook_log (id, delivery_id, webhook_id, attempt, event_type, event_id, request, outcome,
                                      status, duration_ms)
             VALUES ($1, $2, $3, 1, 'transaction', gen_random_uuid(), '{}', 'delivered', 200, 5)`,
    values: (id, ids) => [id, ids.delivery, ids.webhook],
  },
  webhook_health: {
    key: 'webhook_id',
    insert: `INSERT INTO webhook_health (webhook_id, last_attempt_at) VALUES ($1, now())`,
    values: (id) => [id],
    touch: 'last_attempt_at = last_attempt_at',
  },
  webhook_health_hour: {
    key: 'webhook_id',
    insert: `INSERT INTO webhook_health_hour (webhook_id, hour, attempts, failures) VALUES ($1, now(), 1, 0)`,
    values: (id) => [id],
    touch: 'attempts = attempts',
  },
  webhook_rate: {
    key: 'webhook_id',
    insert: `INSERT INTO webhook_rate (webhook_id, next_at) VALUES ($1, now())`,
    values: (id) => [id],
    touch: 'next_at = next_at',
  },
  delivery_wait: {
    key: 'webhook_id',
    insert: `INSERT INTO delivery_wait (webhook_id, delivery_id, attempt, manual, message, not_before)
             VALUES ($1, gen_random_uuid(), 1, false, '{}', now())`,
    values: (id) => [id],
  },
  webhook_recover: {
    key: 'id',
    insert: `INSERT INTO webhook_recover (id, webhook_id, merchant_id, since, state, total, started_at)
             VALUES ($1, $2, $3, now(), 'finished', 0, now())`,
    values: (id, ids) => [id, ids.webhook, ids.merchant],
    touch: 'total = total',
  },
  webhook_recover_sent: {
    key: 'recover_id',
    insert: `INSERT INTO webhook_recover_sent (recover_id, sent, at) VALUES ($1, 0, now())`,
    values: (id) => [id],
    touch: 'sent = sent',
  },
  subject_delivered: {
    key: 'webhook_id',
    insert: `INSERT INTO subject_delivered (webhook_id, event_type, subject_id, position, delivered_hour)
             VALUES ($1, 'transaction', gen_random_uuid(), 1, date_trunc('hour', now()))`,
    values: (id) => [id],
    touch: 'position = position',
  },
};

/** Each app: its role and schema, the tables it owns (in the order rows refer to each other), the views it reads. */
const APPS: Array<{ app: string; database: AppDatabaseRole; tables: string[]; reads: string[] }> = [
  {
    app: 'transaction-api',
    database: TRANSACTION_API_DATABASE,
    tables: ['merchant', 'integration', 'transaction', 'subscription', 'payout', 'outbox_event'],
    reads: [],
  },
  {
    app: 'webhook-config',
    database: WEBHOOK_CONFIG_DATABASE,
    tables: [
      'webhook',
      'webhook_secret',
      'webhook_header',
      'backend_user',
      'backend_session',
      'login_failure',
      'login_known_address',
      'webhook_notice',
      'notice_email',
      'operational_event',
      'recover_reported',
      'cli_session',
      'cli_session_log',
    ],
    reads: [
      'delivery.webhook_delivery_for_webhook_config',
      'delivery.webhook_health_for_webhook_config',
      'delivery.webhook_log_for_webhook_config',
      'delivery.webhook_recover_for_webhook_config',
      'delivery.webhook_recoverable_for_webhook_config',
      'payments.integration_for_webhook_config',
      'payments.merchant_for_webhook_config',
    ],
  },
  {
    app: 'webhook-dispatcher',
    database: WEBHOOK_DISPATCHER_DATABASE,
    tables: [
      'webhook_delivery',
      'webhook_delivery_outcome',
      'webhook_log',
      'webhook_health',
      'webhook_health_hour',
      'webhook_rate',
      'delivery_wait',
      'subject_delivered',
      'webhook_recover',
      'webhook_recover_sent',
    ],
    reads: [
      'backend.webhook_for_dispatcher',
      'backend.webhook_header_for_dispatcher',
      'backend.webhook_secret_for_dispatcher',
    ],
  },
];
const touchOf = (table: string) => ROWS[table.split('.').at(-1)!].touch ?? 'created_at = created_at';
/**
 * Views PostgreSQL cannot write through at all (aggregates): a role that may use their schema has a write refused as
 * such (55000) before any privilege is checked; both codes mean refused.
 */
const NOT_UPDATABLE = new Set([
  'delivery.webhook_health_for_webhook_config',
  'delivery.webhook_recover_for_webhook_config',
]);
const qualified = (app: (typeof APPS)[number]) => app.tables.map((table) => `${app.database.schema}.${table}`);
const ALL_VIEWS = APPS.flatMap((app) => app.reads).sort();

/** The SQLSTATE a statement fails with, or 'ok'. */
async function outcome(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
    return 'ok';
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  }
}

/**
 * One owner per table, enforced by PostgreSQL: each app's sessions, started as the apps start them (the data source's
 * role and search_path start-up options), write their own schema's tables only and read only the views granted them.
 */
describe('database roles (real PostgreSQL)', () => {
  const url = testEnv().databaseUrl;
  const admin = new pg.Pool({ connectionString: url, max: 2 });
  const ids: Ids = {
    merchant: randomUUID(),
    webhook: randomUUID(),
    delivery: randomUUID(),
    user: randomUUID(),
    notice: randomUUID(),
    recover: randomUUID(),
    cliSession: randomUUID(),
  };
  const sessions = new Map<string, DataSource>();

  beforeAll(async () => {
    // One row in every table (as the owner of the database), so that every UPDATE and DELETE below has rows to touch.
    for (const table of APPS.flatMap((app) => app.tables)) {
      await admin.query(ROWS[table].insert, ROWS[table].values(idOf(table, ids), ids));
    }
    for (const { app, database } of APPS) {
      const session = new DataSource(dataSourceOptions({ url, poolSize: 1, applicationName: app, ...database }));
      sessions.set(app, await session.initialize());
    }
  });
  afterAll(async () => {
    for (const session of sessions.values()) await session.destroy();
    await admin.end();
  });

  describe.each(APPS)('$app', ({ app, database, tables, reads }) => {
    const session = () => sessions.get(app)!;

    it(`takes role ${database.role} and finds its own tables in schema ${database.schema}`, async () => {
      expect(await session().query('SELECT current_user AS role, current_schema() AS schema')).toEqual([database]);
    });

    it('inserts, updates and deletes in each of its own tables', async () => {
      const runner = session().createQueryRunner();
      await runner.startTransaction();
      try {
        // Its own new rows refer to each other; to another app's, the rows seeded above.
        const mine: Ids = { ...ids };
        for (const table of tables) if (REFERRED[table]) mine[REFERRED[table]] = randomUUID();
        const keys: string[] = [];
        for (const table of tables) {
          const row = ROWS[table];
          const [inserted] = await runner.query(
            `${row.insert} RETURNING ${row.key} AS key`,
            row.values(idOf(table, mine), mine),
          );
          keys.push(inserted.key);
          const [, updated] = await runner.query(`UPDATE ${table} SET ${touchOf(table)} WHERE ${row.key} = $1`, [
            inserted.key,
          ]);
          expect({ table, updated }).toEqual({ table, updated: 1 });
        }
        for (let i = tables.length - 1; i >= 0; i -= 1) {
          const table = tables[i];
          const [, deleted] = await runner.query(`DELETE FROM ${table} WHERE ${ROWS[table].key} = $1`, [keys[i]]);
          expect({ table, deleted }).toEqual({ table, deleted: 1 });
        }
      } finally {
        await runner.rollbackTransaction();
        await runner.release();
      }
    });

    it("is refused every read and write of another app's tables (permission denied, 42501)", async () => {
      const others = APPS.filter((other) => other.app !== app).flatMap(qualified);
      const results: Record<string, string[]> = {};
      for (const table of others) {
        results[table] = [
          await outcome(() => session().query(`SELECT 1 FROM ${table} LIMIT 1`)),
          await outcome(() => session().query(`INSERT INTO ${table} DEFAULT VALUES`)),
          await outcome(() => session().query(`UPDATE ${table} SET ${touchOf(table)}`)),
          await outcome(() => session().query(`DELETE FROM ${table}`)),
        ];
      }
      expect(results).toEqual(Object.fromEntries(others.map((table) => [table, ['42501', '42501', '42501', '42501']])));
    });

    it('reads the views granted to it, and no other; writes none of them', async () => {
      const results: Record<string, string[]> = {};
      for (const view of ALL_VIEWS) {
        results[view] = [
          await outcome(() => session().query(`SELECT * FROM ${view} LIMIT 1`)),
          await outcome(() => session().query(`INSERT INTO ${view} DEFAULT VALUES`)),
          await outcome(() => session().query(`DELETE FROM ${view}`)),
        ].map((code, i) => (i > 0 && code === '55000' && NOT_UPDATABLE.has(view) ? '42501' : code));
      }
      expect(results).toEqual(
        Object.fromEntries(ALL_VIEWS.map((view) => [view, [reads.includes(view) ? 'ok' : '42501', '42501', '42501']])),
      );
    });

    it('creates nothing: no table in its own schema, in public or in another schema, not even a temporary one', async () => {
      const results = [];
      for (const schema of ['payments', 'backend', 'delivery', 'public']) {
        results.push(await outcome(() => session().query(`CREATE TABLE ${schema}.scratch (n int)`)));
      }
      results.push(await outcome(() => session().query('CREATE TEMPORARY TABLE scratch (n int)')));
      expect(results).toEqual(['42501', '42501', '42501', '42501', '42501']);
    });

    it('holds no privilege on any relation of the database beyond its tables and its views', async () => {
      const { rows } = await admin.query<{ held: string }>(
        `SELECT p.privilege || ' ' || n.nspname || '.' || c.relname AS held
           FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
          CROSS JOIN unnest(ARRAY['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'TRUNCATE', 'REFERENCES', 'TRIGGER']) AS p(privilege)
          WHERE c.relkind IN ('r', 'v', 'm', 'p', 'f')
            AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%'
            AND has_table_privilege($1, c.oid, p.privilege)`,
        [database.role],
      );
      const own = tables.map((table) => `${database.schema}.${table}`);
      expect(rows.map((row) => row.held).sort()).toEqual(
        [
          ...own.flatMap((table) => ['DELETE', 'INSERT', 'SELECT', 'UPDATE'].map((p) => `${p} ${table}`)),
          ...reads.map((view) => `SELECT ${view}`),
        ].sort(),
      );
    });
  });

  it("maintains the delivery partitions through the owner's functions: the dispatcher may, no other app", async () => {
    const calls = [
      `SELECT count(*) FROM delivery.day_partitions()`,
      `SELECT delivery.create_day_partitions(current_date, current_date)`,
      `SELECT delivery.detach_expired_partition(now() - interval '3650 days')`,
      `SELECT delivery.drop_detached_partition()`,
    ];
    const results: Record<string, string[]> = {};
    for (const { app } of APPS) {
      results[app] = [];
      for (const call of calls) results[app].push(await outcome(() => sessions.get(app)!.query(call)));
    }
    expect(results).toEqual({
      'transaction-api': ['42501', '42501', '42501', '42501'],
      'webhook-config': ['42501', '42501', '42501', '42501'],
      'webhook-dispatcher': ['ok', 'ok', 'ok', 'ok'],
    });
    // The partitions themselves are the owner's: the dispatcher reaches their rows through its tables only.
    const [{ partition }] = await admin
      .query(`SELECT name AS partition FROM delivery.day_partitions() LIMIT 1`)
      .then((result) => result.rows);
    expect(await outcome(() => sessions.get('webhook-dispatcher')!.query(`SELECT 1 FROM delivery.${partition}`))).toBe(
      '42501',
    );
  });

  it('lets a login that is a member of one app role take that role, and refuses it the others', async () => {
    // A production login per app (see docs/architecture.md): its own password, a member of the app's role only.
    const login = `payments_test_login_${randomBytes(4).toString('hex')}`;
    const password = randomBytes(12).toString('hex');
    await admin.query(`CREATE ROLE ${login} LOGIN PASSWORD '${password}' IN ROLE ${WEBHOOK_DISPATCHER_DATABASE.role}`);
    try {
      const asLogin = new URL(url);
      asLogin.username = login;
      asLogin.password = password;
      const connect = async (database: AppDatabaseRole) => {
        const session = new DataSource(dataSourceOptions({ url: asLogin.toString(), poolSize: 1, ...database }));
        try {
          await session.initialize();
          return (await session.query('SELECT current_user AS role'))[0].role;
        } catch (error) {
          return (error as { code?: string }).code;
        } finally {
          if (session.isInitialized) await session.destroy();
        }
      };
      expect(await connect(WEBHOOK_DISPATCHER_DATABASE)).toBe('webhook_dispatcher');
      expect(await connect(WEBHOOK_CONFIG_DATABASE)).toBe('42501');
      expect(await connect(TRANSACTION_API_DATABASE)).toBe('42501');
    } finally {
      await admin.query(`DROP ROLE ${login}`);
    }
  });
});
