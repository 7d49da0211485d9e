import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The attempt numbers of the outcome rows written before DeliveryOutcomeAttempts, from their log. Only deliveries
 * with an entry beyond a first automatic attempt need it (the columns' defaults, 1, 1 and 0, are exact for the
 * rest), so a log of millions updates the few rows with repeats or manual attempts. In a transaction of its own
 * (migrationsTransactionMode `each`): it holds row locks only, never the table's exclusive lock the columns took.
 */
export class DeliveryOutcomeAttemptsBackfill1763802950000 implements MigrationInterface {
  name = 'DeliveryOutcomeAttemptsBackfill1763802950000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      UPDATE delivery.webhook_delivery_outcome o
         SET automatic_top = greatest(o.automatic_top, l.automatic_top),
             top_attempt = greatest(o.top_attempt, l.top_attempt),
             manual_top = greatest(o.manual_top, l.manual_top)
        FROM (SELECT l.delivery_id,
                     coalesce(max(l.attempt) FILTER (WHERE NOT l.manual), 0) AS automatic_top,
                     max(l.attempt) AS top_attempt,
                     coalesce(max(l.attempt) FILTER (WHERE l.manual), 0) AS manual_top
                FROM delivery.webhook_log l
               WHERE l.delivery_id IN (SELECT delivery_id FROM delivery.webhook_log WHERE attempt > 1 OR manual)
               GROUP BY l.delivery_id) l
       WHERE l.delivery_id = o.delivery_id`);
  }

  async down(): Promise<void> {
    // Nothing to undo: the columns go with DeliveryOutcomeAttempts' down.
  }
}
