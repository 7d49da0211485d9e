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
 * entry, and for existing rows without entries).
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
    await queryRunner.query(`
      UPDATE delivery.webhook_delivery_outcome o
         SET automatic_top = greatest(1, l.automatic_top), top_attempt = greatest(1, l.top_attempt),
             manual_top = l.manual_top
        FROM (SELECT l.delivery_id,
                     coalesce(max(l.attempt) FILTER (WHERE NOT l.manual), 0) AS automatic_top,
                     coalesce(max(l.attempt), 0) AS top_attempt,
                     coalesce(max(l.attempt) FILTER (WHERE l.manual), 0) AS manual_top
                FROM delivery.webhook_log l
               WHERE l.delivery_id IN (SELECT delivery_id FROM delivery.webhook_delivery_outcome)
               GROUP BY l.delivery_id) l
       WHERE l.delivery_id = o.delivery_id`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE delivery.webhook_delivery_outcome
        DROP COLUMN automatic_top, DROP COLUMN top_attempt, DROP COLUMN manual_top`);
  }
}
