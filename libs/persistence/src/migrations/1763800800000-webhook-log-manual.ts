import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Marks the log entries of manual attempts (tests and resends from the merchant backend). A resend takes the next
 * attempt number, which an automatic repeat already waiting in its delay queue may carry too; the dispatcher drops a
 * stand-in or redelivered message whose attempt is logged, and must not take a resend's entry for the automatic
 * attempt's (the repeats would stop). A constant default: no table rewrite.
 */
export class WebhookLogManual1763800800000 implements MigrationInterface {
  name = 'WebhookLogManual1763800800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE webhook_log ADD COLUMN manual boolean NOT NULL DEFAULT false`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE webhook_log DROP COLUMN manual`);
  }
}
