import type { MigrationInterface, QueryRunner } from 'typeorm';

const CONFIG = 'webhook_config';
const DISPATCHER = 'webhook_dispatcher';
const DISPATCHER_VIEW_COLUMNS =
  'id, merchant_id, integration_id, url, content_type, version, retry_on_error, events, enabled, max_per_second, ' +
  'skip_superseded_repeats';

/**
 * Notices that are never lost, and health reports that act only on their episode (issue #31):
 * - `backend.notice_email`: the e-mail outbox of webhook-config, one row per notice and recipient, written in the
 *   notice's transaction; a sender loop claims due rows (a lease: `claimed_until`), sends them and marks them sent, or
 *   schedules the next try with backoff. Rows due to be sent are found through a partial index.
 * - `backend.webhook.enabled_at`: when the merchant last enabled a disabled webhook (null: enabled since it was created).
 *   A report of an episode that began before is stale; the dispatcher counts a new episode from it (its view gains
 *   the column, appended).
 * - `disabled_reason` `gone`: the URL answered 410 Gone (CONTRACT §5); a notice tells which (`reason`).
 * - `delivery.webhook_health.gone_at` / `gone_reported_for`: the latest attempt answered 410, and the one reported.
 */
export class NoticeOutbox1763802500000 implements MigrationInterface {
  name = 'NoticeOutbox1763802500000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE backend.webhook ADD COLUMN enabled_at timestamptz`);
    await queryRunner.query(`
      ALTER TABLE backend.webhook
        DROP CONSTRAINT webhook_disabled_reason_check,
        ADD CONSTRAINT webhook_disabled_reason_check CHECK (
          (enabled AND disabled_reason IS NULL) OR (NOT enabled AND disabled_reason IN ('manual', 'failing', 'gone')))`);
    await queryRunner.query(
      `CREATE OR REPLACE VIEW backend.webhook_for_dispatcher AS
         SELECT ${DISPATCHER_VIEW_COLUMNS}, enabled_at FROM backend.webhook`,
    );

    await queryRunner.query(`
      ALTER TABLE backend.webhook_notice
        ADD COLUMN reason text CONSTRAINT webhook_notice_reason_check CHECK (reason IN ('failing', 'gone'))`);
    await queryRunner.query(`
      CREATE TABLE backend.notice_email (
        id uuid PRIMARY KEY,
        notice_id uuid NOT NULL REFERENCES backend.webhook_notice (id) ON DELETE CASCADE,
        recipient text NOT NULL,
        -- pending: to be sent (again) at next_attempt_at; sent: done.
        state text NOT NULL DEFAULT 'pending' CONSTRAINT notice_email_state_check CHECK (state IN ('pending', 'sent')),
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL DEFAULT now(),
        -- A sender has it until then; after that (it crashed) another claims it again.
        claimed_until timestamptz,
        last_error text,
        created_at timestamptz NOT NULL DEFAULT now(),
        sent_at timestamptz,
        CONSTRAINT notice_email_recipient_key UNIQUE (notice_id, recipient)
      )`);
    await queryRunner.query(
      `CREATE INDEX notice_email_due_idx ON backend.notice_email (next_attempt_at) WHERE state = 'pending'`,
    );
    await queryRunner.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON backend.notice_email TO ${CONFIG}`);

    await queryRunner.query(`
      ALTER TABLE delivery.webhook_health
        ADD COLUMN gone_at timestamptz,
        ADD COLUMN gone_reported_for timestamptz`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE delivery.webhook_health DROP COLUMN gone_at, DROP COLUMN gone_reported_for`);
    await queryRunner.query(`DROP TABLE backend.notice_email`);
    await queryRunner.query(`ALTER TABLE backend.webhook_notice DROP COLUMN reason`);
    await queryRunner.query(`DROP VIEW backend.webhook_for_dispatcher`);
    await queryRunner.query(
      `CREATE VIEW backend.webhook_for_dispatcher AS SELECT ${DISPATCHER_VIEW_COLUMNS} FROM backend.webhook`,
    );
    await queryRunner.query(
      `COMMENT ON VIEW backend.webhook_for_dispatcher IS ` +
        `'webhook-dispatcher: a webhook''s target and settings, for fan-out and delivery.'`,
    );
    await queryRunner.query(`GRANT SELECT ON backend.webhook_for_dispatcher TO ${DISPATCHER}`);
    await queryRunner.query(`UPDATE backend.webhook SET disabled_reason = 'failing' WHERE disabled_reason = 'gone'`);
    await queryRunner.query(`
      ALTER TABLE backend.webhook
        DROP CONSTRAINT webhook_disabled_reason_check,
        ADD CONSTRAINT webhook_disabled_reason_check CHECK (
          (enabled AND disabled_reason IS NULL) OR (NOT enabled AND disabled_reason IN ('manual', 'failing'))),
        DROP COLUMN enabled_at`);
  }
}
