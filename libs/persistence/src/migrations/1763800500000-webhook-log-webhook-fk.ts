import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Drops webhook_log's own foreign key to webhook. A log row already belongs to its delivery (delivery_id, ON DELETE
 * CASCADE) and the delivery to its webhook (ON DELETE CASCADE), so deleting a webhook still deletes its log; the
 * second key only made every logged attempt look up and KEY SHARE-lock the webhook's row, which all attempts of a
 * webhook share (a MultiXact per concurrent batch). `webhook_id` stays, copied from the delivery, for the log's
 * per-webhook listing index.
 */
export class WebhookLogWebhookFk1763800500000 implements MigrationInterface {
  name = 'WebhookLogWebhookFk1763800500000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE webhook_log DROP CONSTRAINT webhook_log_webhook_id_fkey`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE webhook_log ADD CONSTRAINT webhook_log_webhook_id_fkey
         FOREIGN KEY (webhook_id) REFERENCES webhook(id) ON DELETE CASCADE`,
    );
  }
}
