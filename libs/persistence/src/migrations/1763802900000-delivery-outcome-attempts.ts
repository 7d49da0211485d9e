import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A delivery's attempt numbers on its outcome row (issue #31, a recover's cost to other webhooks): the highest
 * automatic attempt logged (`automatic_top`), the highest attempt logged of any kind (`top_attempt`) and the highest
 * manual one (`manual_top`), kept by the log writer with `greatest`, so entries written twice or out of order leave
 * them right. A recover's batch needs exactly these (how many automatic attempts a delivery had, the number of its
 * next manual attempt, whether its last manual attempt is logged); it read them from each delivery's log entries,
 * one lateral read across the log's day partitions per delivery: most of a batch's time.
 *
 * Automatic attempts are numbered 1, 2, … in order, so the highest is their count. An outcome row exists only for a
 * delivery whose automatic attempt 1 was made (it is written by a log entry that is not attempt 1 delivered, and
 * attempt 1 comes first), hence `automatic_top` at least 1 (the default, for a row written before its attempt 1's
 * entry, and for existing rows without entries). Adding columns with constant defaults changes only the catalogue: the
 * table's exclusive lock is held for moments; the existing rows are brought up to date by the next migration
 * (DeliveryOutcomeAttemptsBackfill), outside this one's lock.
 */
export class DeliveryOutcomeAttempts1763802900000 implements MigrationInterface {
  name = 'DeliveryOutcomeAttempts1763802900000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`SET LOCAL lock_timeout = '10s'`);
    await queryRunner.query(`
      ALTER TABLE delivery.webhook_delivery_outcome
        ADD COLUMN automatic_top int NOT NULL DEFAULT 1,
        ADD COLUMN top_attempt int NOT NULL DEFAULT 1,
        ADD COLUMN manual_top int NOT NULL DEFAULT 0`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE delivery.webhook_delivery_outcome
        DROP COLUMN automatic_top, DROP COLUMN top_attempt, DROP COLUMN manual_top`);
  }
}
