import type { MigrationInterface, QueryRunner } from 'typeorm';

const NEW_KEY = 'webhook_delivery_webhook_id_event_id_key';
const OLD_KEY = 'webhook_delivery_event_id_webhook_id_key';

/**
 * Turns webhook_delivery's unique key from (event_id, webhook_id) into (webhook_id, event_id). Both guard the same
 * thing — one delivery per (event, webhook) — but only the new order serves lookups by webhook: deleting a webhook
 * cascades to its deliveries (`ON DELETE CASCADE`), and with no index led by `webhook_id` PostgreSQL found them by
 * reading the whole table, all deliveries of every merchant, inside the merchant's DELETE request. The fan-out's
 * lookup of an event's deliveries names the webhooks too, so it still uses the key.
 *
 * The new index is built CONCURRENTLY (outside a transaction), so fan-out and resends keep writing to the table
 * meanwhile; only the swap of the two constraints takes the table's lock, briefly. An interrupted build leaves an
 * invalid index behind, which the next run drops first.
 */
export class WebhookDeliveryWebhookIndex1763800600000 implements MigrationInterface {
  name = 'WebhookDeliveryWebhookIndex1763800600000';
  transaction = false;

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS ${NEW_KEY}`);
    await queryRunner.query(`CREATE UNIQUE INDEX CONCURRENTLY ${NEW_KEY} ON webhook_delivery (webhook_id, event_id)`);
    await queryRunner.startTransaction();
    try {
      await queryRunner.query(`ALTER TABLE webhook_delivery ADD CONSTRAINT ${NEW_KEY} UNIQUE USING INDEX ${NEW_KEY}`);
      await queryRunner.query(`ALTER TABLE webhook_delivery DROP CONSTRAINT ${OLD_KEY}`);
      await queryRunner.commitTransaction();
    } catch (error) {
      await queryRunner.rollbackTransaction();
      throw error;
    }
  }

  /** TypeORM reverts inside a transaction whatever `transaction` says, so the old key is built under the lock. */
  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE webhook_delivery ADD CONSTRAINT ${OLD_KEY} UNIQUE (event_id, webhook_id)`);
    await queryRunner.query(`ALTER TABLE webhook_delivery DROP CONSTRAINT ${NEW_KEY}`);
  }
}
