import type { MigrationInterface, QueryRunner } from 'typeorm';

const CONFIG = 'webhook_config';

/**
 * Operational events (issue #34): events about a merchant's own webhooks (`webhook.failing`, `webhook.disabled`,
 * `webhook.enabled`, `webhook.recovered`), published by webhook-config on `payments.events` like transaction-api's
 * outbox publishes, so that fan-out, signing, logging and retries apply to them.
 * - `backend.operational_event`: webhook-config's event outbox, one row per event (the platform event as published),
 *   written in the transaction of the change it reports (a disable, an enable, a failing notice); a relay claims due
 *   rows (a lease: `claimed_until`), publishes them with publisher confirms and marks them published, or tries again
 *   later. Rows due are found through a partial index.
 * - `backend.recover_reported`: the finished recovers (the dispatcher's, read through its view) whose
 *   `webhook.recovered` is in the outbox, each once. The recovers finished before this migration are reported already.
 *   The relay looks only at the recovers finished in the last days, through a partial index on their end, so a check
 *   every few seconds reads a few rows however many recovers the years have finished.
 */
export class OperationalEvents1763803200000 implements MigrationInterface {
  name = 'OperationalEvents1763803200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE backend.operational_event (
        id uuid PRIMARY KEY,
        merchant_id uuid NOT NULL,
        webhook_id uuid NOT NULL,
        type text NOT NULL,
        -- The platform event (libs/messaging PlatformEvent) exactly as it is published.
        payload jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        -- Null until the broker confirmed it.
        published_at timestamptz,
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL DEFAULT now(),
        -- A relay has it until then; after that (it crashed) another claims it again.
        claimed_until timestamptz,
        last_error text
      )`);
    await queryRunner.query(
      `CREATE INDEX operational_event_due_idx ON backend.operational_event (next_attempt_at) WHERE published_at IS NULL`,
    );
    await queryRunner.query(`CREATE TABLE backend.recover_reported (recover_id uuid PRIMARY KEY)`);
    await queryRunner.query(
      `CREATE INDEX webhook_recover_finished_idx ON delivery.webhook_recover (finished_at) WHERE state = 'finished'`,
    );
    await queryRunner.query(
      `INSERT INTO backend.recover_reported (recover_id) SELECT id FROM delivery.webhook_recover WHERE state = 'finished'`,
    );
    await queryRunner.query(
      `GRANT SELECT, INSERT, UPDATE, DELETE ON backend.operational_event, backend.recover_reported TO ${CONFIG}`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX delivery.webhook_recover_finished_idx`);
    await queryRunner.query(`DROP TABLE backend.recover_reported`);
    await queryRunner.query(`DROP TABLE backend.operational_event`);
  }
}
