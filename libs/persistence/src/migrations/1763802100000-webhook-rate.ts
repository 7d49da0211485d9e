import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `maxPerSecond` (CONTRACT §5), summed over every dispatcher process: each rate-limited webhook's next free start
 * time (a generic cell rate algorithm, kept by the dispatcher; one row per limited webhook).
 */
export class WebhookRate1763802100000 implements MigrationInterface {
  name = 'WebhookRate1763802100000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE delivery.webhook_rate (
        webhook_id uuid PRIMARY KEY,
        -- The earliest time the webhook's next request may start.
        next_at timestamptz NOT NULL
      )`);
    await queryRunner.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON delivery.webhook_rate TO webhook_dispatcher`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE delivery.webhook_rate`);
  }
}
