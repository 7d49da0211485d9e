import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Each app's schema, the role its sessions take, and the tables it owns: the only ones it may write. */
const OWNERS = [
  {
    schema: 'payments',
    role: 'transaction_api',
    app: 'transaction-api',
    tables: ['merchant', 'integration', 'transaction', 'subscription', 'payout', 'outbox_event'],
  },
  {
    schema: 'backend',
    role: 'webhook_config',
    app: 'webhook-config',
    tables: ['webhook', 'webhook_secret', 'backend_user', 'backend_session', 'login_failure'],
  },
  {
    schema: 'delivery',
    role: 'webhook_dispatcher',
    app: 'webhook-dispatcher',
    tables: ['webhook_delivery', 'webhook_log'],
  },
];

/**
 * Everything one app reads of another's tables: a view in the owner's schema with only the columns the reader uses,
 * readable by that reader alone. A view reads its tables with its owner's privileges, so the reader needs no
 * privilege on the tables themselves.
 */
const VIEWS = [
  {
    name: 'payments.merchant_for_webhook_config',
    reader: 'webhook_config',
    columns: 'id',
    from: 'payments.merchant',
    comment: 'webhook-config: whether a merchant exists (before it creates a backend user for it).',
  },
  {
    name: 'payments.integration_for_webhook_config',
    reader: 'webhook_config',
    columns: 'id, merchant_id, name, created_at',
    from: 'payments.integration',
    comment: "webhook-config: a merchant's integrations to choose from (never the API key's hash or prefix).",
  },
  {
    name: 'backend.webhook_for_dispatcher',
    reader: 'webhook_dispatcher',
    columns: 'id, merchant_id, integration_id, url, content_type, version, retry_on_error, events',
    from: 'backend.webhook',
    comment: "webhook-dispatcher: a webhook's target and settings, for fan-out and delivery.",
  },
  {
    name: 'backend.webhook_secret_for_dispatcher',
    reader: 'webhook_dispatcher',
    columns: 'webhook_id, ciphertext, created_at, expires_at',
    from: 'backend.webhook_secret',
    comment: "webhook-dispatcher: a webhook's signing secrets, still encrypted with SECRET_ENCRYPTION_KEY.",
  },
  {
    name: 'delivery.webhook_log_for_webhook_config',
    reader: 'webhook_config',
    columns:
      'id, delivery_id, webhook_id, attempt, event_type, event_id, request, status, duration_ms, error, ' +
      'response_excerpt, created_at, next_attempt_at',
    from: 'delivery.webhook_log',
    comment: "webhook-config: a webhook's delivery log, as the merchant backend shows it.",
  },
];

/** Where the database's own sessions look first when they name a table without its schema (see `up`). */
const DEFAULT_SEARCH_PATH = 'payments, backend, delivery, public';

const DELIVERY_WEBHOOK_FK = 'webhook_delivery_webhook_id_fkey';

/**
 * One owner per table, enforced by PostgreSQL: each app's tables move into a schema of its own, and each app's
 * sessions take a role (NOLOGIN) that may write only that schema's tables (SELECT, INSERT, UPDATE, DELETE, and its
 * sequences). What an app reads of another's goes through the views above; nothing else is readable, and nothing
 * else is writable anywhere: CREATE on schema public and TEMPORARY on the database are revoked from PUBLIC.
 *
 * Roles belong to the server, not the database, and many databases (every test run's) may share one server: they
 * are created only when missing (by a superuser or a login with CREATEROLE; otherwise the DBA creates them first),
 * a concurrent creation by another database's migration is taken for ours, and `down` never drops them (it revokes
 * what `up` granted here). The apps take their role and schema at connection start (`-c role=… -c
 * search_path=…`): DATABASE_URL is a superuser, or a login that is a member of the app's role.
 *
 * `ALTER TABLE … SET SCHEMA` changes only the catalog (indexes, constraints and identity sequences move with their
 * table), so this is quick on a populated database; each ALTER needs its table to itself for a moment, so it gives
 * up after 10 s rather than queue every statement behind a long transaction. Sessions that name no schema (psql,
 * the tests' and scripts' own connections as the owner) find the tables through the database's default search path;
 * the migrations table stays in public.
 *
 * Cross-schema foreign keys: webhook_delivery → webhook (ON DELETE CASCADE) is dropped, so webhook-config's DELETE of
 * a webhook no longer deletes the dispatcher's rows (the dispatcher deletes them itself when it learns of it). The
 * keys to payments.merchant and payments.integration stay: they only read the parent when a row is written
 * (PostgreSQL checks them with the parent table owner's privileges), and no app deletes merchants or integrations.
 */
export class AppSchemasAndRoles1763801500000 implements MigrationInterface {
  name = 'AppSchemasAndRoles1763801500000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`SET LOCAL lock_timeout = '10s'`);
    await queryRunner.query(`
      DO $$
      DECLARE
        role_name text;
      BEGIN
        FOREACH role_name IN ARRAY ARRAY[${OWNERS.map((owner) => `'${owner.role}'`).join(', ')}] LOOP
          IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = role_name) THEN
            BEGIN
              EXECUTE format('CREATE ROLE %I NOLOGIN', role_name);
            EXCEPTION WHEN duplicate_object OR unique_violation THEN
              NULL; -- created meanwhile by the migration of another database on this server
            END;
          END IF;
        END LOOP;
      END $$`);

    for (const { schema, role, app, tables } of OWNERS) {
      await queryRunner.query(`CREATE SCHEMA ${schema}`);
      await queryRunner.query(`COMMENT ON SCHEMA ${schema} IS 'The tables of ${app}: only role ${role} writes them.'`);
      for (const table of tables) await queryRunner.query(`ALTER TABLE public.${table} SET SCHEMA ${schema}`);
      await queryRunner.query(`GRANT USAGE ON SCHEMA ${schema} TO ${role}`);
      await queryRunner.query(
        `GRANT SELECT, INSERT, UPDATE, DELETE ON ${tables.map((table) => `${schema}.${table}`).join(', ')} TO ${role}`,
      );
      await queryRunner.query(`GRANT USAGE ON ALL SEQUENCES IN SCHEMA ${schema} TO ${role}`);
    }
    await queryRunner.query(`ALTER TABLE delivery.webhook_delivery DROP CONSTRAINT ${DELIVERY_WEBHOOK_FK}`);

    for (const view of VIEWS) {
      await queryRunner.query(`CREATE VIEW ${view.name} AS SELECT ${view.columns} FROM ${view.from}`);
      await queryRunner.query(`COMMENT ON VIEW ${view.name} IS '${view.comment.replace(/'/g, "''")}'`);
      await queryRunner.query(`GRANT USAGE ON SCHEMA ${view.name.split('.')[0]} TO ${view.reader}`);
      await queryRunner.query(`GRANT SELECT ON ${view.name} TO ${view.reader}`);
    }

    await queryRunner.query(`REVOKE CREATE ON SCHEMA public FROM PUBLIC`);
    await this.onThisDatabase(queryRunner, 'REVOKE TEMPORARY ON DATABASE %I FROM PUBLIC');
    await this.onThisDatabase(queryRunner, `ALTER DATABASE %I SET search_path = ${DEFAULT_SEARCH_PATH}`);
  }

  /**
   * Moves the tables back to public and revokes what `up` granted; the roles stay (other databases may use them),
   * and so does the revoked CREATE on schema public (PostgreSQL's own default since version 15). The foreign key from
   * deliveries to webhooks comes back: deliveries of webhooks deleted meanwhile are deleted first (with their log),
   * as the key's ON DELETE CASCADE would have.
   */
  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`SET LOCAL lock_timeout = '10s'`);
    await this.onThisDatabase(queryRunner, 'ALTER DATABASE %I RESET search_path');
    await this.onThisDatabase(queryRunner, 'GRANT TEMPORARY ON DATABASE %I TO PUBLIC');

    for (const view of [...VIEWS].reverse()) await queryRunner.query(`DROP VIEW ${view.name}`);
    const roles = OWNERS.map((owner) => owner.role).join(', ');
    for (const { schema } of OWNERS) {
      await queryRunner.query(`REVOKE ALL ON ALL TABLES IN SCHEMA ${schema} FROM ${roles}`);
      await queryRunner.query(`REVOKE ALL ON ALL SEQUENCES IN SCHEMA ${schema} FROM ${roles}`);
    }

    await queryRunner.query(
      `DELETE FROM delivery.webhook_delivery d WHERE NOT EXISTS (SELECT 1 FROM backend.webhook w WHERE w.id = d.webhook_id)`,
    );
    await queryRunner.query(
      `ALTER TABLE delivery.webhook_delivery ADD CONSTRAINT ${DELIVERY_WEBHOOK_FK}
         FOREIGN KEY (webhook_id) REFERENCES backend.webhook(id) ON DELETE CASCADE`,
    );
    for (const { schema, tables } of [...OWNERS].reverse()) {
      for (const table of tables) await queryRunner.query(`ALTER TABLE ${schema}.${table} SET SCHEMA public`);
      await queryRunner.query(`DROP SCHEMA ${schema}`);
    }
  }

  /** Runs `statement` with `%I` standing for this database's name (ALTER DATABASE and GRANT need it spelled out). */
  private async onThisDatabase(queryRunner: QueryRunner, statement: string): Promise<void> {
    await queryRunner.query(`DO $$ BEGIN EXECUTE format('${statement}', current_database()); END $$`);
  }
}
