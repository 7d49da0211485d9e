import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The dispatcher's schedule of deliveries that wait (docs/webhook-dispatcher.md, Rate limit and Repeats): a delivery
 * of a rate-limited webhook whose start cannot come within the dispatcher's hold, and a repeat that a `Retry-After`
 * moved off its delay queue's time. One row per waiting delivery, a per-webhook FIFO by `(not_before, seq)`; the
 * dispatcher's pump publishes them as their webhook's current `maxPerSecond` allows. A waiting delivery costs nothing
 * while it waits (no message cycling through a queue) and holds no prefetch.
 * - `message`: the delivery message as it will be published (with its snapshot), `attempt` its `x-attempt`,
 *   `traceparent` the trace it belongs to.
 * - `(webhook_id, not_before, seq)`: the webhooks with due rows (a skip scan) and each one's due rows in order;
 *   `(not_before)`: how many wait and since when (metrics, tests).
 */
export class DeliveryWait1763802600000 implements MigrationInterface {
  name = 'DeliveryWait1763802600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE delivery.delivery_wait (
        seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        webhook_id uuid NOT NULL,
        delivery_id uuid NOT NULL,
        attempt integer NOT NULL,
        manual boolean NOT NULL,
        message jsonb NOT NULL,
        traceparent text,
        -- Not published before this time (a Retry-After, a repeat's time, or when it began to wait).
        not_before timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(
      `CREATE INDEX delivery_wait_webhook_due_idx ON delivery.delivery_wait (webhook_id, not_before, seq)`,
    );
    await queryRunner.query(`CREATE INDEX delivery_wait_not_before_idx ON delivery.delivery_wait (not_before)`);
    await queryRunner.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON delivery.delivery_wait TO webhook_dispatcher`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE delivery.delivery_wait`);
  }
}
