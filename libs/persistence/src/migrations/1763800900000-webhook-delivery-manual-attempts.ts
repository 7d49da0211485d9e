import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Counts the manual attempts (a test, resends) requested for a delivery, and the attempt number the latest one took.
 * Before, a resend counted the log, which the dispatcher writes later: two resends in quick succession were
 * answered the same place in the log and the same attempt number (the dispatcher then took the second for a
 * redelivery of the first and dropped it), and the 50-attempt limit let through as many as were clicked before the
 * log caught up. Now each resend takes its count and number in one UPDATE of the delivery row, which serialises
 * them. Rows from before keep 0: the count read is the larger of this column and the manual entries logged.
 * Constant defaults: no table rewrite.
 */
export class WebhookDeliveryManualAttempts1763800900000 implements MigrationInterface {
  name = 'WebhookDeliveryManualAttempts1763800900000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // The ALTER needs the table to itself for a moment: rather fail (and be run again) than queue behind a long
    // transaction while every delivery statement queues behind the ALTER.
    await queryRunner.query(`SET LOCAL lock_timeout = '10s'`);
    await queryRunner.query(
      `ALTER TABLE webhook_delivery ADD COLUMN manual_attempts int NOT NULL DEFAULT 0,
                                    ADD COLUMN last_manual_attempt int NOT NULL DEFAULT 0`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE webhook_delivery DROP COLUMN manual_attempts, DROP COLUMN last_manual_attempt`,
    );
  }
}
