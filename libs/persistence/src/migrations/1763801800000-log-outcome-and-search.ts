import type { MigrationInterface, QueryRunner } from 'typeorm';

const CONFIG = 'webhook_config';
const VIEW = 'delivery.webhook_log_for_webhook_config';
const VIEW_COMMENT = "webhook-config: a webhook's delivery log, as the merchant backend shows it.";
const VIEW_COLUMNS =
  'id, delivery_id, webhook_id, attempt, event_type, event_id, request, status, duration_ms, error, ' +
  'response_excerpt, created_at, next_attempt_at';

/**
 * The log's `outcome` (CONTRACT §5: delivered, failed, skipped, superseded) and its search (`GET
 * /api/webhooks/{id}/logs?outcome=&eventType=&subject=&referenceId=`): an entry that made no request (skipped,
 * superseded) has a null `status`, and every filter is served by an index that starts like the page's own (webhook,
 * then newest first), so a filtered page reads about as many index entries as an unfiltered one. The subject and the
 * referenceId are read from the entry's `request` (uuid, referenceId), where the dispatcher writes them.
 * Existing entries get their outcome from their status (they were all attempts).
 */
export class LogOutcomeAndSearch1763801800000 implements MigrationInterface {
  name = 'LogOutcomeAndSearch1763801800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE delivery.webhook_log ADD COLUMN outcome text`);
    await queryRunner.query(
      `UPDATE delivery.webhook_log
          SET outcome = CASE WHEN status BETWEEN 200 AND 299 THEN 'delivered' ELSE 'failed' END`,
    );
    await queryRunner.query(`ALTER TABLE delivery.webhook_log ALTER COLUMN outcome SET NOT NULL`);
    await queryRunner.query(`ALTER TABLE delivery.webhook_log ALTER COLUMN status DROP NOT NULL`);
    await queryRunner.query(
      `ALTER TABLE delivery.webhook_log ADD CONSTRAINT webhook_log_outcome_check CHECK (
         (outcome IN ('delivered', 'failed') AND status IS NOT NULL)
         OR (outcome IN ('skipped', 'superseded') AND status IS NULL))`,
    );
    for (const [name, key] of INDEXES) {
      await queryRunner.query(
        `CREATE INDEX ${name} ON delivery.webhook_log (webhook_id, ${key}, created_at DESC, id DESC)`,
      );
    }
    await this.replaceView(queryRunner, `${VIEW_COLUMNS}, outcome`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await this.replaceView(queryRunner, VIEW_COLUMNS);
    for (const [name] of INDEXES) await queryRunner.query(`DROP INDEX delivery.${name}`);
    // Entries without a status made no request; the older layout has no place for them.
    await queryRunner.query(`DELETE FROM delivery.webhook_log WHERE status IS NULL`);
    await queryRunner.query(`ALTER TABLE delivery.webhook_log DROP CONSTRAINT webhook_log_outcome_check`);
    await queryRunner.query(`ALTER TABLE delivery.webhook_log ALTER COLUMN status SET NOT NULL`);
    await queryRunner.query(`ALTER TABLE delivery.webhook_log DROP COLUMN outcome`);
  }

  private async replaceView(queryRunner: QueryRunner, columns: string): Promise<void> {
    await queryRunner.query(`DROP VIEW ${VIEW}`);
    await queryRunner.query(`CREATE VIEW ${VIEW} AS SELECT ${columns} FROM delivery.webhook_log`);
    await queryRunner.query(`COMMENT ON VIEW ${VIEW} IS '${VIEW_COMMENT.replace(/'/g, "''")}'`);
    await queryRunner.query(`GRANT SELECT ON ${VIEW} TO ${CONFIG}`);
  }
}

/** One index per filter, each (webhook, filter value, newest first) like the unfiltered page's. */
const INDEXES: Array<[name: string, key: string]> = [
  ['webhook_log_outcome_idx', 'outcome'],
  ['webhook_log_event_type_idx', 'event_type'],
  ['webhook_log_subject_idx', "(request->>'uuid')"],
  ['webhook_log_reference_idx', "(request->>'referenceId')"],
];
