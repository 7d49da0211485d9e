import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Notices to a merchant about its webhooks (CONTRACT §5): failing for an hour, disabled after failing. webhook-config
 * owns them; one per webhook, kind and episode (the failure episode's start), however often the dispatcher reports it.
 * `emailed_at`: when it went out by e-mail (SMTP_URL); null while it has not (or no e-mail is configured).
 */
export class WebhookNotices1763802200000 implements MigrationInterface {
  name = 'WebhookNotices1763802200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE backend.webhook_notice (
        id uuid PRIMARY KEY,
        merchant_id uuid NOT NULL,
        webhook_id uuid NOT NULL REFERENCES backend.webhook (id) ON DELETE CASCADE,
        kind text NOT NULL CONSTRAINT webhook_notice_kind_check CHECK (kind IN ('failing', 'disabled')),
        failing_since timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        emailed_at timestamptz,
        CONSTRAINT webhook_notice_episode_key UNIQUE (webhook_id, kind, failing_since)
      )`);
    await queryRunner.query(
      `CREATE INDEX webhook_notice_merchant_idx ON backend.webhook_notice (merchant_id, created_at DESC, id DESC)`,
    );
    await queryRunner.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON backend.webhook_notice TO webhook_config`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE backend.webhook_notice`);
  }
}
