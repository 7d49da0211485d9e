import type { MigrationInterface, QueryRunner } from 'typeorm';

const DISPATCHER = 'webhook_dispatcher';
const CONFIG = 'webhook_config';

/**
 * Recover as a job (CONTRACT §5, Recover; docs/webhook-dispatcher.md, Recover):
 * - `webhook_delivery.recoverable`: the delivery's latest log entry is `failed` or `skipped` (`outcome_at`: that
 *   entry's time, so that an entry written out of order never overrides a newer one), kept by the dispatcher's log
 *   writer. A partial index on it serves a recover's count and its pages, whatever the days it spans: 1,000,000
 *   deliveries count from the index alone. `recover_id`: the recover that took the delivery's last manual attempt.
 * - `delivery.webhook_recover`: one row per recover, its progress and its place (`cursor_*`); at most one running per
 *   webhook (a unique partial index); `lease_*`: the dispatcher process working on it.
 * - webhook-config reads both through views (the count, and a recover's progress).
 */
export class RecoverJobs1763802700000 implements MigrationInterface {
  name = 'RecoverJobs1763802700000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE delivery.webhook_delivery
        ADD COLUMN recoverable boolean NOT NULL DEFAULT false,
        ADD COLUMN outcome_at timestamptz,
        ADD COLUMN recover_id uuid`);
    await queryRunner.query(`
      UPDATE delivery.webhook_delivery d SET recoverable = l.outcome IN ('failed', 'skipped'), outcome_at = l.created_at
        FROM (SELECT DISTINCT ON (delivery_id) delivery_id, outcome, created_at FROM delivery.webhook_log
               ORDER BY delivery_id, created_at DESC, id DESC) l
       WHERE l.delivery_id = d.id`);
    await queryRunner.query(
      `CREATE INDEX webhook_delivery_recoverable_idx ON delivery.webhook_delivery (webhook_id, created_at, id)
        WHERE recoverable`,
    );

    await queryRunner.query(`
      CREATE TABLE delivery.webhook_recover (
        id uuid PRIMARY KEY,
        webhook_id uuid NOT NULL,
        merchant_id uuid NOT NULL,
        since timestamptz NOT NULL,
        state text NOT NULL CONSTRAINT webhook_recover_state_check CHECK (state IN ('running', 'finished', 'cancelled')),
        -- Deliveries to send (counted when it started), and those taken and queued so far.
        total integer NOT NULL,
        queued integer NOT NULL DEFAULT 0,
        -- The last delivery queued, in (created_at, id) order; null before the first.
        cursor_created_at timestamptz,
        cursor_id uuid,
        -- Every recoverable delivery up to the end is queued; it finishes once they are attempted.
        queued_all boolean NOT NULL DEFAULT false,
        started_at timestamptz NOT NULL,
        finished_at timestamptz,
        -- Why it was cancelled: 'requested' (DELETE) or 'disabled' (its webhook was disabled or deleted).
        cancel_reason text,
        -- The dispatcher process working on it, and until when.
        lease_owner text,
        lease_until timestamptz
      )`);
    // Its attempts logged so far: counted by the log writer with each batch, in a row of their own so that the log
    // never waits for the job's row (nor the job for the log).
    await queryRunner.query(`
      CREATE TABLE delivery.webhook_recover_sent (
        recover_id uuid PRIMARY KEY,
        sent integer NOT NULL,
        at timestamptz NOT NULL
      )`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX webhook_recover_running_key ON delivery.webhook_recover (webhook_id) WHERE state = 'running'`,
    );
    await queryRunner.query(
      `CREATE INDEX webhook_recover_webhook_idx ON delivery.webhook_recover (webhook_id, started_at DESC)`,
    );
    await queryRunner.query(
      `GRANT SELECT, INSERT, UPDATE, DELETE ON delivery.webhook_recover, delivery.webhook_recover_sent TO ${DISPATCHER}`,
    );

    await queryRunner.query(`
      CREATE VIEW delivery.webhook_recover_for_webhook_config AS
        SELECT r.id, r.webhook_id, r.since, r.state, r.total, coalesce(s.sent, 0) AS sent, r.started_at, r.finished_at,
               r.cancel_reason
          FROM delivery.webhook_recover r LEFT JOIN delivery.webhook_recover_sent s ON s.recover_id = r.id`);
    await queryRunner.query(
      `COMMENT ON VIEW delivery.webhook_recover_for_webhook_config IS ` +
        `'webhook-config: a webhook''s recovers and their progress (GET /api/webhooks/{id}/recover, 409 while one runs).'`,
    );
    await queryRunner.query(`GRANT SELECT ON delivery.webhook_recover_for_webhook_config TO ${CONFIG}`);
    await queryRunner.query(`
      CREATE OR REPLACE VIEW delivery.webhook_delivery_for_webhook_config AS
        SELECT id, webhook_id, created_at, recoverable FROM delivery.webhook_delivery`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP VIEW delivery.webhook_delivery_for_webhook_config`);
    await queryRunner.query(`
      CREATE VIEW delivery.webhook_delivery_for_webhook_config AS
        SELECT id, webhook_id, created_at FROM delivery.webhook_delivery`);
    await queryRunner.query(`GRANT SELECT ON delivery.webhook_delivery_for_webhook_config TO ${CONFIG}`);
    await queryRunner.query(`DROP VIEW delivery.webhook_recover_for_webhook_config`);
    await queryRunner.query(`DROP TABLE delivery.webhook_recover_sent, delivery.webhook_recover`);
    await queryRunner.query(`DROP INDEX delivery.webhook_delivery_recoverable_idx`);
    await queryRunner.query(`
      ALTER TABLE delivery.webhook_delivery DROP COLUMN recoverable, DROP COLUMN outcome_at, DROP COLUMN recover_id`);
  }
}
