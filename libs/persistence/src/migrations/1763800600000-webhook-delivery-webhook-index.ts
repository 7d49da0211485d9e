import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Turns webhook_delivery's unique key from (event_id, webhook_id) into (webhook_id, event_id). Both guard the same
 * thing — one delivery per (event, webhook) — but only the new order serves lookups by webhook: deleting a webhook
 * cascades to its deliveries (`ON DELETE CASCADE`), and with no index led by `webhook_id` PostgreSQL found them by
 * reading the whole table, all deliveries of every merchant, inside the merchant's DELETE request. The fan-out's
 * lookup of an event's deliveries names the webhooks too, so it still uses the key.
 *
 * Builds the new index under the table's lock; on a large existing table run it in a maintenance window.
 */
export class WebhookDeliveryWebhookIndex1763800600000 implements MigrationInterface {
  name = 'WebhookDeliveryWebhookIndex1763800600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE webhook_delivery ADD CONSTRAINT webhook_delivery_webhook_id_event_id_key UNIQUE (webhook_id, event_id)`,
    );
    await queryRunner.query(`ALTER TABLE webhook_delivery DROP CONSTRAINT webhook_delivery_event_id_webhook_id_key`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE webhook_delivery ADD CONSTRAINT webhook_delivery_event_id_webhook_id_key UNIQUE (event_id, webhook_id)`,
    );
    await queryRunner.query(`ALTER TABLE webhook_delivery DROP CONSTRAINT webhook_delivery_webhook_id_event_id_key`);
  }
}
