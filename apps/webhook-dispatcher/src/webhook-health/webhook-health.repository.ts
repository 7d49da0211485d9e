import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { DatabaseRetry } from '../common/database-retry.js';
import type { HealthRow } from './webhook-health.monitor.js';

/**
 * The attempts (delivered or failed) a batch of log entries inserted, as a JSON array of `{webhook_id, created_at,
 * outcome, status}` built by the log writer's statement (DeliveryLogWriter), passed on as its text.
 */
export type InsertedAttemptsJson = string;

/**
 * In the health upsert: whether every failure the stored row counts (failures_in_a_row since failing_since) is still
 * after the webhook's latest success once this batch is in — the batch has no success newer than the stored one, or
 * the stored failures all came after the batch's success (a success logged late). Otherwise the failures after the
 * batch's success are counted again from the log (the stored row cannot tell which of its failures were before it).
 */
const KEEPS_STORED_FAILURES = `(excluded.last_success_at IS NULL
  OR excluded.last_success_at <= coalesce(h.last_success_at, '-infinity')
  OR h.failing_since > excluded.last_success_at)`;

/**
 * Each webhook's health (delivery.webhook_health, webhook_health_hour; CONTRACT §5 `health`), kept from the attempts
 * the log writer inserts, in the log writer's transaction.
 */
@Injectable()
export class WebhookHealthRepository {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly retry: DatabaseRetry,
  ) {}

  /**
   * Deletes the health of a webhook that no longer exists (its row, and one per hour of the last day); nothing while
   * it exists. Part of DeliveryRepository.deleteOfDeletedWebhook. Waits out database outages (DatabaseRetry).
   */
  async deleteOfDeletedWebhook(webhookId: string): Promise<void> {
    await this.retry.run(() =>
      this.db.query(
        `WITH gone AS (SELECT $1::uuid AS id WHERE NOT EXISTS (SELECT 1 FROM backend.webhook_for_dispatcher w WHERE w.id = $1)),
              h AS (DELETE FROM webhook_health WHERE webhook_id IN (SELECT id FROM gone))
         DELETE FROM webhook_health_hour WHERE webhook_id IN (SELECT id FROM gone)`,
        [webhookId],
      ),
    );
  }

  /**
   * Forgets the hourly counts older than the 24 hours the health reads (`attempts24h`, `failures24h`), with an
   * hour's margin: a few rows per webhook, deleted rather than partitioned. Called by the retention job.
   */
  async forgetOldHours(): Promise<void> {
    await this.db.query(`DELETE FROM webhook_health_hour WHERE hour < now() - interval '25 hours'`);
  }

  /**
   * Records the attempts a batch inserted into the log, in the transaction that inserted them (`manager`): only
   * those, so a batch written again after an error counts nothing twice. Per webhook: the latest attempt and
   * success; failing since the first failure after the latest success, by the attempts' times, not the order they
   * are written in (a success in the batch ends an episode; failures without one continue it; an attempt older than
   * the latest success changes neither the episode nor the state, and a success logged after newer failures leaves
   * them failing — KEEPS_STORED_FAILURES); failures in a row; the latest attempt answered 410 Gone (gone_at,
   * reported by the monitor); attempts and failures per hour. Rows are upserted in webhook order, then the hours in
   * (webhook, hour) order, the same in every process. (A batch written at the same moment by another process is seen
   * as it was when this statement started, for the batch's own failures only.)
   *
   * When the failures are counted again from the log, the log already holds this batch's own entries (inserted
   * earlier in the same transaction): the count and the first failure are the log's alone.
   *
   * Returns the health of the webhooks now failing, for the monitor (WebhookHealthMonitor.observe).
   */
  recordAttempts(manager: EntityManager, attempts: InsertedAttemptsJson): Promise<HealthRow[]> {
    return manager.query(
      `WITH attempts AS (
         SELECT * FROM json_to_recordset($1::json)
           AS a(webhook_id uuid, created_at timestamptz, outcome text, status int)),
       per AS (
         SELECT webhook_id, max(created_at) AS last_attempt_at,
                max(created_at) FILTER (WHERE outcome = 'delivered') AS last_success_at,
                max(created_at) FILTER (WHERE outcome = 'failed' AND status = 410) AS gone_at
           FROM attempts GROUP BY webhook_id),
       known AS (SELECT webhook_id, last_success_at FROM webhook_health WHERE webhook_id IN (SELECT webhook_id FROM per)),
       tail AS (
         SELECT a.webhook_id, min(a.created_at) AS first_failure, count(*)::int AS failures
           FROM attempts a JOIN per p USING (webhook_id) LEFT JOIN known k USING (webhook_id)
          WHERE a.outcome = 'failed'
            AND a.created_at > greatest(p.last_success_at, k.last_success_at, '-infinity')
          GROUP BY a.webhook_id),
       health AS (
         INSERT INTO webhook_health AS h
                (webhook_id, last_attempt_at, last_success_at, failing_since, failures_in_a_row, gone_at)
         SELECT p.webhook_id, p.last_attempt_at, p.last_success_at, t.first_failure, coalesce(t.failures, 0), p.gone_at
           FROM per p LEFT JOIN tail t USING (webhook_id)
          ORDER BY p.webhook_id
         ON CONFLICT (webhook_id) DO UPDATE SET
           last_attempt_at = greatest(h.last_attempt_at, excluded.last_attempt_at),
           last_success_at = greatest(h.last_success_at, excluded.last_success_at),
           gone_at = greatest(h.gone_at, excluded.gone_at),
           failing_since = least(
             CASE WHEN ${KEEPS_STORED_FAILURES} THEN h.failing_since
                  WHEN h.last_attempt_at > excluded.last_success_at THEN
                    (SELECT min(l.created_at) FROM webhook_log l
                      WHERE l.webhook_id = h.webhook_id AND l.created_at > excluded.last_success_at
                        AND l.outcome = 'failed') END,
             excluded.failing_since),
           failures_in_a_row =
             CASE WHEN ${KEEPS_STORED_FAILURES} THEN h.failures_in_a_row + excluded.failures_in_a_row
                  WHEN h.last_attempt_at > excluded.last_success_at THEN
                    (SELECT count(*)::int FROM webhook_log l
                      WHERE l.webhook_id = h.webhook_id AND l.created_at > excluded.last_success_at
                        AND l.outcome = 'failed')
                  ELSE excluded.failures_in_a_row END
         RETURNING h.webhook_id, h.failing_since, h.failures_in_a_row, h.failing_reported_for, h.disable_reported_for,
                   h.gone_at, h.gone_reported_for),
       hours AS (
         INSERT INTO webhook_health_hour AS x (webhook_id, hour, attempts, failures)
         SELECT webhook_id, date_trunc('hour', created_at), count(*), count(*) FILTER (WHERE outcome = 'failed')
           FROM attempts GROUP BY 1, 2 ORDER BY 1, 2
         ON CONFLICT (webhook_id, hour) DO UPDATE
           SET attempts = x.attempts + excluded.attempts, failures = x.failures + excluded.failures
         RETURNING 1)
       SELECT * FROM health WHERE failing_since IS NOT NULL`,
      [attempts],
    );
  }
}
