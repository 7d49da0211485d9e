import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhooks (configured in webhook-config), their encrypted secrets, and what the dispatcher writes:
 * one delivery per (event, webhook) holding the body rendered once, and one log row per attempt. A delivery
 * is written once and never updated: its state is its latest log row (attempt, status, next_attempt_at).
 */
export class Webhooks1763800100000 implements MigrationInterface {
  name = 'Webhooks1763800100000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE webhook (
        id uuid PRIMARY KEY,
        merchant_id uuid NOT NULL REFERENCES merchant(id) ON DELETE CASCADE,
        integration_id uuid REFERENCES integration(id) ON DELETE CASCADE,
        name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
        url text NOT NULL CHECK (length(url) <= 2048),
        content_type text NOT NULL CHECK (content_type IN ('json', 'php-post')),
        version text NOT NULL,
        retry_on_error boolean NOT NULL,
        events text[] NOT NULL CHECK (cardinality(events) >= 1 AND events <@ ARRAY['transaction', 'subscription', 'payout']),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX webhook_merchant_idx ON webhook (merchant_id, created_at DESC)`);

    await queryRunner.query(`
      CREATE TABLE webhook_secret (
        id uuid PRIMARY KEY,
        webhook_id uuid NOT NULL REFERENCES webhook(id) ON DELETE CASCADE,
        ciphertext bytea NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz
      )`);
    await queryRunner.query(`CREATE INDEX webhook_secret_webhook_idx ON webhook_secret (webhook_id, created_at DESC)`);

    await queryRunner.query(`
      CREATE TABLE webhook_delivery (
        id uuid PRIMARY KEY,
        webhook_id uuid NOT NULL REFERENCES webhook(id) ON DELETE CASCADE,
        merchant_id uuid NOT NULL,
        event_id uuid NOT NULL,
        event_type text NOT NULL,
        subject jsonb NOT NULL,
        url text NOT NULL,
        content_type text NOT NULL,
        version text NOT NULL,
        retry_on_error boolean NOT NULL,
        body bytea NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (event_id, webhook_id)
      )`);

    await queryRunner.query(`
      CREATE TABLE webhook_log (
        id uuid PRIMARY KEY,
        delivery_id uuid NOT NULL REFERENCES webhook_delivery(id) ON DELETE CASCADE,
        webhook_id uuid NOT NULL REFERENCES webhook(id) ON DELETE CASCADE,
        attempt integer NOT NULL CHECK (attempt >= 1),
        event_type text NOT NULL,
        event_id uuid NOT NULL,
        request jsonb NOT NULL,
        status integer NOT NULL,
        duration_ms integer NOT NULL,
        error text,
        response_excerpt text,
        created_at timestamptz NOT NULL DEFAULT now(),
        next_attempt_at timestamptz
      )`);
    await queryRunner.query(
      `CREATE INDEX webhook_log_webhook_idx ON webhook_log (webhook_id, created_at DESC, id DESC)`,
    );
    await queryRunner.query(`CREATE INDEX webhook_log_delivery_idx ON webhook_log (delivery_id, attempt)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE webhook_log`);
    await queryRunner.query(`DROP TABLE webhook_delivery`);
    await queryRunner.query(`DROP TABLE webhook_secret`);
    await queryRunner.query(`DROP TABLE webhook`);
  }
}
