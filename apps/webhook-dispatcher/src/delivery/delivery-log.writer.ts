import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { WebhookLogRequest } from '#persistence';

/** One attempt's log entry (CONTRACT §5); the latest entry of a delivery is its state. */
export interface AttemptRecord {
  id: string;
  deliveryId: string;
  webhookId: string;
  attempt: number;
  eventType: string;
  eventId: string;
  request: WebhookLogRequest;
  status: number;
  durationMs: number;
  error: string | null;
  responseExcerpt: string | null;
  createdAt: Date;
  nextAttemptAt: Date | null;
}

const MAX_BATCH = 500;
const LINGER_MS = 5;
/** Batches written at once: one waits on the database while the next is being filled and sent. */
const FLUSHES_IN_FLIGHT = 2;

interface Pending {
  record: AttemptRecord;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Writes attempts in batches: rows that arrive within a few milliseconds share one statement.
 * `write` resolves once its row is committed, so the caller acks its message only after the log is safe.
 */
@Injectable()
export class DeliveryLogWriter implements OnApplicationShutdown {
  private readonly logger = new Logger(DeliveryLogWriter.name);
  private queue: Pending[] = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(@InjectDataSource() private readonly db: DataSource) {}

  write(record: AttemptRecord): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ record, resolve, reject });
      if (this.queue.length >= MAX_BATCH) this.flushNow();
      else this.timer ??= setTimeout(() => this.flushNow(), LINGER_MS);
    });
  }

  /** Starts writing a batch unless FLUSHES_IN_FLIGHT batches are already being written. */
  private flushNow(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.inFlight.size >= FLUSHES_IN_FLIGHT || this.queue.length === 0) return;
    const batch = this.queue.splice(0, MAX_BATCH);
    const flush = this.insert(batch.map((p) => p.record)).then(
      () => batch.forEach((p) => p.resolve()),
      (error: unknown) => {
        this.logger.error(`could not write ${batch.length} log rows: ${(error as Error).message}`);
        batch.forEach((p) => p.reject(error));
      },
    );
    this.inFlight.add(flush);
    void flush.finally(() => {
      this.inFlight.delete(flush);
      if (this.queue.length > 0) this.flushNow();
    });
  }

  private async insert(records: AttemptRecord[]): Promise<void> {
    const col = <K extends keyof AttemptRecord>(key: K) => records.map((r) => r[key]);
    await this.db.query(
      `INSERT INTO webhook_log (id, delivery_id, webhook_id, attempt, event_type, event_id, request, status,
                                duration_ms, error, response_excerpt, created_at, next_attempt_at)
       SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::int[], $5::text[], $6::uuid[], $7::jsonb[],
                            $8::int[], $9::int[], $10::text[], $11::text[], $12::timestamptz[], $13::timestamptz[])
       ON CONFLICT (id) DO NOTHING`,
      [
        col('id'),
        col('deliveryId'),
        col('webhookId'),
        col('attempt'),
        col('eventType'),
        col('eventId'),
        records.map((r) => JSON.stringify(r.request)),
        col('status'),
        col('durationMs'),
        col('error'),
        col('responseExcerpt'),
        col('createdAt'),
        col('nextAttemptAt'),
      ],
    );
  }

  async onApplicationShutdown(): Promise<void> {
    while (this.queue.length > 0 || this.inFlight.size > 0) {
      this.flushNow();
      await Promise.allSettled([...this.inFlight]);
    }
  }
}
