import type { MigrationInterface, QueryRunner } from 'typeorm';

const DISPATCHER = 'webhook_dispatcher';
const CONFIG = 'webhook_config';
const DISPATCHER_VIEW_COLUMNS = 'id, merchant_id, integration_id, url, content_type, version, retry_on_error, events';

/**
 * The delivery lifecycle's data (CONTRACT §5):
 * - webhook-config's settings `enabled` (with why not: `disabled_reason`, manual or failing), `max_per_second` and
 *   `skip_superseded_repeats`, which the dispatcher reads through its view of the webhook;
 * - the dispatcher's account of each webhook's attempts: `delivery.webhook_health` (the latest success, since when the
 *   attempts fail and how many have) and `delivery.webhook_health_hour` (attempts and failures per hour, for the
 *   last 24 hours' counts), kept up to date with each batch of log entries; webhook-config reads both through a
 *   view, one row per webhook, so a list of webhooks reads its health in one indexed query.
 */
export class WebhookLifecycle1763801900000 implements MigrationInterface {
  name = 'WebhookLifecycle1763801900000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE backend.webhook
        ADD COLUMN enabled boolean NOT NULL DEFAULT true,
        ADD COLUMN disabled_reason text,
        ADD COLUMN max_per_second integer,
        ADD COLUMN skip_superseded_repeats boolean NOT NULL DEFAULT true,
        ADD CONSTRAINT webhook_disabled_reason_check CHECK (
          (enabled AND disabled_reason IS NULL) OR (NOT enabled AND disabled_reason IN ('manual', 'failing'))),
        ADD CONSTRAINT webhook_max_per_second_check CHECK (max_per_second BETWEEN 1 AND 1000)`);
    await queryRunner.query(
      `CREATE OR REPLACE VIEW backend.webhook_for_dispatcher AS
         SELECT ${DISPATCHER_VIEW_COLUMNS}, enabled, max_per_second, skip_superseded_repeats FROM backend.webhook`,
    );

    await queryRunner.query(`
      CREATE TABLE delivery.webhook_health (
        webhook_id uuid PRIMARY KEY,
        last_attempt_at timestamptz NOT NULL,
        last_success_at timestamptz,
        -- The first failed attempt after the last success; null while the latest attempt succeeded.
        failing_since timestamptz,
        -- Failed attempts since the last success.
        failures_in_a_row integer NOT NULL DEFAULT 0,
        -- The episode (failing_since) the dispatcher last reported as failing for an hour, and as to be disabled:
        -- each is reported once per episode.
        failing_reported_for timestamptz,
        disable_reported_for timestamptz
      )`);
    await queryRunner.query(`
      CREATE TABLE delivery.webhook_health_hour (
        webhook_id uuid NOT NULL,
        hour timestamptz NOT NULL,
        attempts integer NOT NULL,
        failures integer NOT NULL,
        PRIMARY KEY (webhook_id, hour)
      )`);
    await queryRunner.query(
      `GRANT SELECT, INSERT, UPDATE, DELETE ON delivery.webhook_health, delivery.webhook_health_hour TO ${DISPATCHER}`,
    );
    await queryRunner.query(`
      CREATE VIEW delivery.webhook_health_for_webhook_config AS
        SELECT h.webhook_id, h.last_success_at, h.failing_since,
               coalesce(d.attempts, 0) AS attempts_24h, coalesce(d.failures, 0) AS failures_24h
          FROM delivery.webhook_health h
          LEFT JOIN LATERAL (
            SELECT sum(attempts)::int AS attempts, sum(failures)::int AS failures FROM delivery.webhook_health_hour
             WHERE webhook_id = h.webhook_id AND hour > now() - interval '24 hours'
          ) d ON true`);
    await queryRunner.query(
      `COMMENT ON VIEW delivery.webhook_health_for_webhook_config IS ` +
        `'webhook-config: how a webhook''s attempts went (the backend shows it as the webhook''s health).'`,
    );
    await queryRunner.query(`GRANT SELECT ON delivery.webhook_health_for_webhook_config TO ${CONFIG}`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP VIEW delivery.webhook_health_for_webhook_config`);
    await queryRunner.query(`DROP TABLE delivery.webhook_health_hour, delivery.webhook_health`);
    await queryRunner.query(`DROP VIEW backend.webhook_for_dispatcher`);
    await queryRunner.query(
      `CREATE VIEW backend.webhook_for_dispatcher AS SELECT ${DISPATCHER_VIEW_COLUMNS} FROM backend.webhook`,
    );
    await queryRunner.query(
      `COMMENT ON VIEW backend.webhook_for_dispatcher IS ` +
        `'webhook-dispatcher: a webhook''s target and settings, for fan-out and delivery.'`,
    );
    await queryRunner.query(`GRANT SELECT ON backend.webhook_for_dispatcher TO ${DISPATCHER}`);
    await queryRunner.query(`
      ALTER TABLE backend.webhook
        DROP COLUMN enabled, DROP COLUMN disabled_reason, DROP COLUMN max_per_second,
        DROP COLUMN skip_superseded_repeats`);
  }
}
