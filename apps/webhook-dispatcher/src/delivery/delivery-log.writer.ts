import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { createdAtRangeOf, logOfDeliveryRange } from '#domain';
import { isTransientDatabaseError, type LogOutcome, type WebhookLogRequest } from '#persistence';
import { Batcher } from '../common/batcher.js';
import { DatabaseRetry } from '../common/database-retry.js';

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
  /** A test or resend from the merchant backend (see attemptLogged). */
  manual: boolean;
}

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
   */
  private async insertRows(records: AttemptRecord[]): Promise<void> {
    await this.db.query(
      `INSERT INTO webhook_log (id, delivery_id, webhook_id, attempt, event_type, event_id, request, outcome, status,
                                duration_ms, error, response_excerpt, created_at, next_attempt_at, manual)
       SELECT * FROM json_to_recordset($1::json)
         AS r(id uuid, "deliveryId" uuid, "webhookId" uuid, attempt int, "eventType" text, "eventId" uuid,
              request jsonb, outcome text, status int, "durationMs" int, error text, "responseExcerpt" text,
              "createdAt" timestamptz, "nextAttemptAt" timestamptz, manual boolean)
       ON CONFLICT (id, created_at) DO NOTHING`,
      [JSON.stringify(records)],
    );
  }

  async onApplicationShutdown(): Promise<void> {
    await this.batcher.drain();
  }
}
