import type { MigrationInterface, QueryRunner } from 'typeorm';

const DISPATCHER = 'webhook_dispatcher';

/**
 * Superseded repeats (CONTRACT §5, `skipSupersededRepeats`): once a newer event of a transaction or subscription was
 * delivered to a webhook, the pending repeats of that subject's older events for that webhook are not made.
 *
 * - `delivery.webhook_delivery.position`: the event's place in its subject's history (transaction-api's outbox seq,
 *   carried by the event), null when unknown (payouts, tests, deliveries made before). Delivery messages carry it in
 *   their snapshot; the row has it for messages without one (resends).
 * - `delivery.subject_delivered`: per webhook and subject (kind — the event type's category, as in the log — and id)
 *   the highest position delivered (2xx) so far. Upserted by the statement that writes a batch of log entries; a
 *   repeat reads it by primary key. `delivered_hour` (the hour that position was delivered in) is what the partition
 *   maintenance deletes by after WEBHOOK_LOG_RETENTION; truncated to the hour so that a subject's later events in the
 *   same hour leave its index entry as it is (heap-only updates, with room left on each page for them).
 */
export class SupersededRepeats1763802000000 implements MigrationInterface {
  name = 'SupersededRepeats1763802000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // Metadata only (no default): every day partition gets the column, no row is rewritten.
    await queryRunner.query(`ALTER TABLE delivery.webhook_delivery ADD COLUMN position bigint`);
    await queryRunner.query(`
      CREATE TABLE delivery.subject_delivered (
        webhook_id uuid NOT NULL,
        event_type text NOT NULL,
        subject_id uuid NOT NULL,
        position bigint NOT NULL,
        delivered_hour timestamptz NOT NULL,
        PRIMARY KEY (webhook_id, event_type, subject_id)
      ) WITH (fillfactor = 90)`);
    await queryRunner.query(`CREATE INDEX subject_delivered_hour_idx ON delivery.subject_delivered (delivered_hour)`);
    await queryRunner.query(
      `COMMENT ON TABLE delivery.subject_delivered IS ` +
        `'The newest event (highest position) of each subject delivered to each webhook: older events'' repeats are superseded.'`,
    );
    await queryRunner.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON delivery.subject_delivered TO ${DISPATCHER}`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE delivery.subject_delivered`);
    await queryRunner.query(`ALTER TABLE delivery.webhook_delivery DROP COLUMN position`);
  }
}
