import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { createdAtRangeOf, logOfDeliveryRange } from '#domain';
import type { DeliverySnapshot } from '#messaging';
import { isTransientDatabaseError, type LogOutcome, type WebhookLogRequest } from '#persistence';
import { Batcher } from '../common/batcher.js';
import { DatabaseRetry } from '../common/database-retry.js';
import { WebhookHealthMonitor, type HealthRow } from '../webhook/webhook-health.monitor.js';

/** One attempt's entry in the webhook log (docs/webhook-config.md, Delivery log); a delivery's latest is its state. */
export interface AttemptRecord {
  id: string;
  deliveryId: string;
  webhookId: string;
  attempt: number;
  eventType: string;
  eventId: string;
  request: WebhookLogRequest;
  outcome: LogOutcome;
  /** The HTTP status (0: no response); null when no request was made (skipped, superseded). */
  status: number | null;
  durationMs: number;
  error: string | null;
  responseExcerpt: string | null;
  createdAt: Date;
  nextAttemptAt: Date | null;
  /** A test, resend or recovered delivery from the merchant backend (see attemptLogged). */
  manual: boolean;
  /** The recover that sent it (its sent count grows with the entry). Not a log column. */
  recoverId?: string;
  /**
   * The event's position in its subject's history when it supersedes (supersedingPosition): a delivered attempt
   * records it as its subject's newest delivered to the webhook (delivery.subject_delivered). Not a log column.
   */
  position?: number;
}

/** What a log entry shows of what was (or would have been) sent, and of its subject. */
export function logRequestOf(url: string, snapshot: DeliverySnapshot): WebhookLogRequest {
  return {
    url,
    contentType: snapshot.contentType,
    version: snapshot.version,
    psp: snapshot.subject.psp ?? null,
    type: snapshot.subject.type ?? null,
    uuid: snapshot.subject.uuid,
    referenceId: snapshot.subject.referenceId ?? null,
  };
}

/**
 * The entry of a delivery not attempted (CONTRACT §5, no status, nothing scheduled after it): `skipped`, its webhook
 * is disabled (it can be recovered later; at fan-out its id is the delivery's, so a fan-out of the same event again
 * writes it once); `superseded`, a repeat not made because a newer event of its subject was delivered to its webhook.
 */
export function notAttemptedRecord(
  outcome: 'skipped' | 'superseded',
  entry: { id: string; deliveryId: string; attempt: number; url: string; createdAt: Date },
  snapshot: DeliverySnapshot,
): AttemptRecord {
  return {
    id: entry.id,
    deliveryId: entry.deliveryId,
    webhookId: snapshot.webhookId,
    attempt: entry.attempt,
    eventType: snapshot.eventType,
    eventId: snapshot.eventId,
    request: logRequestOf(entry.url, snapshot),
    outcome,
    status: null,
    durationMs: 0,
    error: null,
    responseExcerpt: null,
    createdAt: entry.createdAt,
    nextAttemptAt: null,
    manual: false,
  };
}

/**
 * In the health upsert: whether every failure the stored row counts (failures_in_a_row since failing_since) is still
 * after the webhook's latest success once this batch is in — the batch has no success newer than the stored one, or
 * the stored failures all came after the batch's success (a success logged late). Otherwise the failures after the
 * batch's success are counted again from the log (the stored row cannot tell which of its failures were before it).
 */
const KEEPS_STORED_FAILURES = `(excluded.last_success_at IS NULL
  OR excluded.last_success_at <= coalesce(h.last_success_at, '-infinity')
  OR h.failing_since > excluded.last_success_at)`;

/** Per record of a batch: written (or its delivery is gone), or the error that kept it out. */
type Outcome = Error | undefined;

/**
 * Writes attempts in batches: rows that arrive within a few milliseconds share one statement, with two batches
 * in flight. `write` resolves once its row is committed, so the caller acks its message only after the log is
 * safe; it waits out database outages (DatabaseRetry), because an attempt that is not logged would be made again.
 * The linger adds nothing to delivery latency (the POST is already done), only to the ack.
 */
@Injectable()
export class DeliveryLogWriter implements OnApplicationShutdown {
  private readonly batcher = new Batcher<AttemptRecord, Outcome>(
    { maxBatch: 500, lingerMs: 20, concurrency: 2 },
    (records) => this.insert(records),
  );

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly retry: DatabaseRetry,
    private readonly monitor: WebhookHealthMonitor,
  ) {}

  write(record: AttemptRecord): Promise<void> {
    return this.retry.run(async () => {
      const error = await this.batcher.submit(record);
      if (error) throw error;
    });
  }

  /**
   * Whether this attempt of the delivery was logged (a delivery deleted with its webhook, or removed after
   * WEBHOOK_LOG_RETENTION, counts as logged), among the automatic or among the manual attempts: a resend takes the
   * next number, which a repeat still waiting may carry too, and neither's entry stands for the other. `unsure` when the check had to wait out a database outage: the
   * attempt's own log write (perhaps in another process) may still be waiting to be retried.
   */
  async attemptLogged(deliveryId: string, attempt: number, manual: boolean): Promise<'yes' | 'no' | 'unsure'> {
    // Bounded to the partitions the delivery and its log can be in (libs/domain delivery-time.ts).
    const delivery = createdAtRangeOf(deliveryId);
    const log = logOfDeliveryRange(deliveryId);
    const { result: rows, waited } = await this.retry.runNoting<unknown[]>(() =>
      this.db.query(
        `SELECT 1 FROM webhook_delivery d
          WHERE d.id = $1 AND d.created_at BETWEEN $4 AND $5
            AND NOT EXISTS (SELECT 1 FROM webhook_log l
                             WHERE l.delivery_id = d.id AND l.attempt = $2 AND l.manual = $3
                               AND l.created_at BETWEEN $6 AND $7)`,
        [deliveryId, attempt, manual, delivery.from, delivery.to, log.from, log.to],
      ),
    );
    if (rows.length === 0) return 'yes';
    return waited ? 'unsure' : 'no';
  }

  /**
   * One statement per batch. If it fails for a reason of one row's own, the rows are written one by one, so that
   * row fails alone and the others' attempts are not made again. No row looks its delivery up (the log has no
   * foreign key to it: the two are partitioned by day each): the entry of an attempt whose webhook was deleted while
   * it ran is written after the webhook's log was deleted, where nobody reads it, and goes with its day.
   */
  private async insert(records: AttemptRecord[]): Promise<Outcome[]> {
    try {
      await this.insertRows(records);
      return records.map(() => undefined);
    } catch (error) {
      // The database is away: every row waits for it (DatabaseRetry in `write`).
      if (isTransientDatabaseError(error)) return records.map(() => error as Error);
      if (records.length === 1) return [error as Error];
      return Promise.all(
        records.map((record) =>
          this.insertRows([record]).then(
            () => undefined,
            (rowError: Error) => rowError,
          ),
        ),
      );
    }
  }

  /**
   * The rows as one JSON array: V8 serialises it natively, where 13 parameter arrays would each be quoted and escaped
   * element by element by the driver (a few per cent of the dispatcher's CPU).
   *
   * The same statement keeps each webhook's health (delivery.webhook_health, webhook_health_hour; CONTRACT §5
   * `health`) from the attempts it actually inserted (RETURNING skips those already written): a batch written again
   * after an error counts nothing twice. Per webhook: the latest attempt and success; failing since the first failure
   * after the latest success, by the attempts' times, not the order they are written in (a success in the batch ends
   * an episode; failures without one continue it; an attempt older than the latest success changes neither the
   * episode nor the state, and a success logged after newer failures leaves them failing — KEEPS_STORED_FAILURES);
   * failures in a row; the latest attempt answered 410 Gone (gone_at, reported by the monitor); attempts and failures
   * per hour. Rows are upserted in webhook order, the same in every process. (A batch written at the same moment by
   * another process is seen as it was when this statement started, for the batch's own failures only.)
   *
   * And each subject's newest event delivered to each webhook (delivery.subject_delivered, superseded repeats): from
   * the delivered attempts that carry a position, passed apart (`$2`, usually a few rows or none) rather than read
   * back from the log, which does not store it. Raising a position to the greatest is idempotent, so rows written
   * before need no care; a row is only rewritten when its position rises. In key order, after the health rows (the
   * final SELECT fixes the order), like them the same in every process.
   */
  private async insertRows(records: AttemptRecord[]): Promise<void> {
    const delivered = [];
    for (const record of records) {
      if (record.outcome !== 'delivered' || record.position === undefined) continue;
      const { webhookId, eventType, position, createdAt } = record;
      delivered.push({ webhookId, eventType, subject: record.request.uuid, position, createdAt });
    }
    // Where each entry's delivery row is (its day partition), for keeping the delivery's outcome (`recoverable`).
    const rows = records.map((record) => {
      const { from, to } = createdAtRangeOf(record.deliveryId);
      return { ...record, deliveryFrom: from, deliveryTo: to };
    });
    const failing: HealthRow[] = await this.db.query(
      `WITH inserted AS (
         INSERT INTO webhook_log (id, delivery_id, webhook_id, attempt, event_type, event_id, request, outcome, status,
                                  duration_ms, error, response_excerpt, created_at, next_attempt_at, manual)
         SELECT * FROM json_to_recordset($1::json)
           AS r(id uuid, "deliveryId" uuid, "webhookId" uuid, attempt int, "eventType" text, "eventId" uuid,
                request jsonb, outcome text, status int, "durationMs" int, error text, "responseExcerpt" text,
                "createdAt" timestamptz, "nextAttemptAt" timestamptz, manual boolean)
         ON CONFLICT (id, created_at) DO NOTHING
         RETURNING id, delivery_id, webhook_id, attempt, manual, created_at, outcome, status),
       extra AS (
         SELECT i.*, x."recoverId", x."deliveryFrom", x."deliveryTo"
           FROM inserted i
           JOIN json_to_recordset($1::json)
                AS x(id uuid, "recoverId" uuid, "deliveryFrom" timestamptz, "deliveryTo" timestamptz) USING (id)),
       attempts AS (SELECT * FROM inserted WHERE outcome IN ('delivered', 'failed')),
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
           failures_in_a_row = excluded.failures_in_a_row +
             CASE WHEN ${KEEPS_STORED_FAILURES} THEN h.failures_in_a_row
                  WHEN h.last_attempt_at > excluded.last_success_at THEN
                    (SELECT count(*)::int FROM webhook_log l
                      WHERE l.webhook_id = h.webhook_id AND l.created_at > excluded.last_success_at
                        AND l.outcome = 'failed')
                  ELSE 0 END
         RETURNING h.webhook_id, h.failing_since, h.failures_in_a_row, h.failing_reported_for, h.disable_reported_for,
                   h.gone_at, h.gone_reported_for),
       hours AS (
         INSERT INTO webhook_health_hour AS x (webhook_id, hour, attempts, failures)
         SELECT webhook_id, date_trunc('hour', created_at), count(*), count(*) FILTER (WHERE outcome = 'failed')
           FROM attempts GROUP BY 1, 2 ORDER BY 1, 2
         ON CONFLICT (webhook_id, hour) DO UPDATE
           SET attempts = x.attempts + excluded.attempts, failures = x.failures + excluded.failures
         RETURNING 1),
       newest AS (
         INSERT INTO subject_delivered AS s (webhook_id, event_type, subject_id, position, delivered_hour)
         SELECT "webhookId", "eventType", subject, max(position), date_trunc('hour', max("createdAt"))
           FROM json_to_recordset($2::json)
             AS d("webhookId" uuid, "eventType" text, subject uuid, position bigint, "createdAt" timestamptz)
          GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
         ON CONFLICT (webhook_id, event_type, subject_id) DO UPDATE
           SET position = excluded.position, delivered_hour = excluded.delivered_hour
           WHERE s.position < excluded.position
         RETURNING 1),
       marked AS (SELECT * FROM extra WHERE outcome <> 'delivered' OR attempt > 1 OR manual),
       marks AS (
         SELECT DISTINCT ON (delivery_id) delivery_id, outcome IN ('failed', 'skipped') AS recoverable, created_at,
                "recoverId", "deliveryFrom", "deliveryTo",
                max(attempt) FILTER (WHERE NOT manual) OVER same AS automatic_top,
                max(attempt) OVER same AS top_attempt,
                max(attempt) FILTER (WHERE manual) OVER same AS manual_top
           FROM marked
         WINDOW same AS (PARTITION BY delivery_id)
          ORDER BY delivery_id, created_at DESC),
       flagged AS (
         INSERT INTO webhook_delivery_outcome AS o (delivery_id, created_at, webhook_id, recoverable, outcome_at,
                                                    recover_id, automatic_top, top_attempt, manual_top)
         SELECT m.delivery_id, d.created_at, d.webhook_id, m.recoverable, m.created_at, m."recoverId",
                greatest(m.automatic_top, 1), m.top_attempt, coalesce(m.manual_top, 0)
           FROM marks m,
                LATERAL (SELECT d.created_at, d.webhook_id FROM webhook_delivery d
                          WHERE d.id = m.delivery_id AND d.created_at BETWEEN m."deliveryFrom" AND m."deliveryTo") d
          ORDER BY 1, 2
         ON CONFLICT (delivery_id, created_at) DO UPDATE
           SET recoverable = CASE WHEN o.outcome_at <= excluded.outcome_at THEN excluded.recoverable
                                  ELSE o.recoverable END,
               outcome_at = greatest(o.outcome_at, excluded.outcome_at),
               -- The attempt its recover took is logged: no longer one to queue again (RecoverRepository.unsent).
               -- (excluded.recover_id is the entry's recover; a row is never inserted by a recover's entry: the
               -- recover took it from this table.)
               recover_id = CASE WHEN o.recover_id = excluded.recover_id THEN NULL ELSE o.recover_id END,
               -- Attempt numbers only rise, whatever order entries are written in (RecoverRepository.takeBatch).
               automatic_top = greatest(o.automatic_top, excluded.automatic_top),
               top_attempt = greatest(o.top_attempt, excluded.top_attempt),
               manual_top = greatest(o.manual_top, excluded.manual_top)
         RETURNING 1),
       recovered AS (
         INSERT INTO webhook_recover_sent AS s (recover_id, sent, at)
         SELECT "recoverId", count(*), clock_timestamp() FROM extra
          WHERE "recoverId" IS NOT NULL AND outcome IN ('delivered', 'failed')
          GROUP BY 1 ORDER BY 1
         ON CONFLICT (recover_id) DO UPDATE SET sent = s.sent + excluded.sent, at = excluded.at
         RETURNING 1)
       SELECT * FROM health WHERE failing_since IS NOT NULL`,
      [JSON.stringify(rows), JSON.stringify(delivered)],
    );
    // Reports on webhooks failing long (an hour; WEBHOOK_DISABLE_AFTER) go out beside the batch, not in its way.
    if (failing.length > 0) void this.monitor.observe(failing);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.batcher.drain();
  }
}
