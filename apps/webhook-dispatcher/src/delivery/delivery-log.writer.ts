import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { createdAtRangeOf, logOfDeliveryRange } from '#domain';
import type { DeliverySnapshot } from '#messaging';
import { isTransientDatabaseError, type LogOutcome, type WebhookLogRequest } from '#persistence';
import { Batcher } from '../common/batcher.js';
import { DatabaseRetry } from '../common/database-retry.js';
import { RecoverRepository } from '../recover/recover.repository.js';
import { WebhookHealthMonitor } from '../webhook-health/webhook-health.monitor.js';
import { WebhookHealthRepository } from '../webhook-health/webhook-health.repository.js';

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

/** Per record of a batch: written (or its delivery is gone), or the error that kept it out. */
type Outcome = Error | undefined;

/**
 * Writes attempts in batches: rows that arrive within a few milliseconds share one transaction, with two batches
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
    private readonly health: WebhookHealthRepository,
    private readonly recovers: RecoverRepository,
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
   * One database transaction per batch. If it fails for a reason of one row's own, the rows are written one by one,
   * so that row fails alone and the others' attempts are not made again. No row looks its delivery up (the log has
   * no foreign key to it: the two are partitioned by day each): the entry of an attempt whose webhook was deleted
   * while it ran is written after the webhook's log was deleted, where nobody reads it, and goes with its day.
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
   * A batch in one transaction, each table written by its owner: the log, the deliveries' outcomes and the subjects'
   * newest delivered events here (one statement), then the health of the webhooks (WebhookHealthRepository) and the
   * recovers' sent counts (RecoverRepository) from the entries the log actually took — RETURNING skips those already
   * written, so a batch written again after an error counts nothing twice. Every process writes the tables in the
   * same order, and each table's rows in key order. The entries the log took go from one statement to the next as
   * the JSON text PostgreSQL built (no parse, no serialising here), and a statement with nothing to record is not
   * sent. The health of webhooks now failing goes to the monitor once the batch is committed.
   */
  private async insertRows(records: AttemptRecord[]): Promise<void> {
    const failing = await this.db.transaction(async (manager) => {
      const { attempts, recovered } = await this.insertLog(manager, records);
      if (recovered !== null) await this.recovers.addSent(manager, recovered);
      return attempts === null ? [] : this.health.recordAttempts(manager, attempts);
    });
    // Reports on webhooks failing long (an hour; WEBHOOK_DISABLE_AFTER) go out beside the batch, not in its way.
    if (failing.length > 0) void this.monitor.observe(failing);
  }

  /**
   * The rows as one JSON array: V8 serialises it natively, where 13 parameter arrays would each be quoted and escaped
   * element by element by the driver (a few per cent of the dispatcher's CPU).
   *
   * Inserts the entries into the log, keeps each delivery's outcome (webhook_delivery_outcome: recoverable, its
   * attempt numbers, its recover's mark) and each subject's newest event delivered to each webhook
   * (delivery.subject_delivered, superseded repeats): from the delivered attempts that carry a position, passed apart
   * (`$2`, usually a few rows or none) rather than read back from the log, which does not store it. Raising a
   * position to the greatest is idempotent, so rows written before need no care; a row is only rewritten when its
   * position rises. Both in key order, the same in every process.
   *
   * Returns, as JSON text (null: none), the attempts (delivered or failed) the log took, for the health, and how many
   * of them each recover sent, for its count.
   */
  private async insertLog(
    manager: EntityManager,
    records: AttemptRecord[],
  ): Promise<{ attempts: string | null; recovered: string | null }> {
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
    const [taken]: Array<{ attempts: string | null; recovered: string | null }> = await manager.query(
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
         RETURNING 1)
       SELECT (SELECT json_agg(a)::text
                 FROM (SELECT webhook_id, created_at, outcome, status FROM inserted
                        WHERE outcome IN ('delivered', 'failed')) a) AS attempts,
              (SELECT json_agg(r)::text
                 FROM (SELECT "recoverId" AS recover_id, count(*) AS sent FROM extra
                        WHERE "recoverId" IS NOT NULL AND outcome IN ('delivered', 'failed')
                        GROUP BY 1) r) AS recovered`,
      [JSON.stringify(rows), JSON.stringify(delivered)],
    );
    return taken;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.batcher.drain();
  }
}
