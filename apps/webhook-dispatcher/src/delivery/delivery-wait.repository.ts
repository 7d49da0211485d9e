import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, QueryRunner } from 'typeorm';
import { logOfDeliveryRange } from '#domain';
import type { DeliveryMessage } from '#messaging';
import { Batcher } from '../common/batcher.js';
import { DatabaseRetry } from '../common/database-retry.js';

/** A delivery to put in the schedule: the message as it will be published, and the earliest time to publish it. */
export interface NewWait {
  message: DeliveryMessage;
  attempt: number;
  traceparent: string | null;
  /** Unix ms; none for a delivery that only waits for room in its webhook's rate limit (due now, the database's now). */
  notBefore?: number;
}

/** A waiting delivery taken from the schedule. */
export interface Waiting {
  seq: string;
  message: DeliveryMessage;
  attempt: number;
  manual: boolean;
  traceparent: string | null;
}

/** Which of a webhook's due rows to take. */
export type TakeFilter = 'all' | 'automatic';

/**
 * The schedule of waiting deliveries (delivery.delivery_wait, docs/webhook-dispatcher.md, Rate limit): a per-webhook
 * first-in first-out list in PostgreSQL, ordered by `(not_before, seq)`. Rows added within an event-loop turn share
 * one statement; {@link add} resolves once its row is committed (the caller then acks the message it came from). Rows
 * are taken only by the pump, inside its per-webhook transaction ({@link inWebhookLock}).
 */
@Injectable()
export class DeliveryWaitRepository implements OnApplicationShutdown {
  private readonly batcher = new Batcher<NewWait, void>({ maxBatch: 1_000, lingerMs: 0, concurrency: 2 }, (rows) =>
    this.insert(rows),
  );

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly retry: DatabaseRetry,
  ) {}

  /** Puts a delivery in the schedule; waits out a database outage (the message stays unacked meanwhile). */
  add(wait: NewWait): Promise<void> {
    return this.retry.run(() => this.batcher.submit(wait));
  }

  private async insert(rows: NewWait[]): Promise<void[]> {
    await this.db.query(
      `INSERT INTO delivery_wait (webhook_id, delivery_id, attempt, manual, message, traceparent, not_before)
       SELECT (r.message -> 'snapshot' ->> 'webhookId')::uuid, (r.message ->> 'deliveryId')::uuid, r.attempt,
              coalesce((r.message ->> 'manual')::boolean, false), r.message, r.traceparent,
              coalesce(to_timestamp(r.not_before / 1000), clock_timestamp())
         FROM jsonb_to_recordset($1::jsonb) AS r(message jsonb, attempt int, traceparent text, not_before float8, ord int)
        ORDER BY r.ord`,
      [
        JSON.stringify(
          rows.map((row, ord) => ({
            message: row.message,
            attempt: row.attempt,
            traceparent: row.traceparent,
            not_before: row.notBefore,
            ord,
          })),
        ),
      ],
    );
    return rows.map(() => undefined);
  }

  /**
   * Up to `limit` webhooks that have rows due now (a skip scan over the (webhook_id, not_before, seq) index: one probe
   * per webhook that has any row, however many rows wait).
   */
  async webhooksDue(limit: number): Promise<string[]> {
    const rows: Array<{ webhook_id: string }> = await this.db.query(
      `WITH RECURSIVE w AS (
         (SELECT webhook_id FROM delivery_wait ORDER BY webhook_id LIMIT 1)
         UNION ALL
         SELECT (SELECT d.webhook_id FROM delivery_wait d WHERE d.webhook_id > w.webhook_id ORDER BY d.webhook_id LIMIT 1)
           FROM w WHERE w.webhook_id IS NOT NULL
       )
       SELECT w.webhook_id FROM w
        WHERE w.webhook_id IS NOT NULL
          AND EXISTS (SELECT 1 FROM delivery_wait d WHERE d.webhook_id = w.webhook_id AND d.not_before <= clock_timestamp())
        LIMIT $1`,
      [limit],
    );
    return rows.map((row) => row.webhook_id);
  }

  /**
   * Runs `work` in a transaction that holds the webhook's schedule lock (an advisory lock, so that one process at a
   * time takes its rows, and the others go on to other webhooks); undefined when another process holds it. Whatever
   * `work` took is deleted only if it returns (it publishes them first): if the process dies, they are still waiting.
   */
  async inWebhookLock<T>(webhookId: string, work: (runner: QueryRunner) => Promise<T>): Promise<T | undefined> {
    const runner = this.db.createQueryRunner();
    await runner.connect();
    try {
      await runner.startTransaction();
      const [{ locked }]: Array<{ locked: boolean }> = await runner.query(
        `SELECT pg_try_advisory_xact_lock(hashtextextended('delivery_wait ' || $1, 0)) AS locked`,
        [webhookId],
      );
      if (!locked) {
        await runner.rollbackTransaction();
        return undefined;
      }
      const result = await work(runner);
      await runner.commitTransaction();
      return result;
    } catch (error) {
      if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
      throw error;
    } finally {
      await runner.release();
    }
  }

  /** Takes (deletes, in the caller's transaction) up to `limit` of the webhook's due rows, first in first out. */
  async take(runner: QueryRunner, webhookId: string, limit: number, filter: TakeFilter = 'all'): Promise<Waiting[]> {
    if (limit <= 0) return [];
    const rows: Array<{
      seq: string;
      message: DeliveryMessage;
      attempt: number;
      manual: boolean;
      traceparent: string | null;
      not_before: Date;
    }> = await runner.query(
      `WITH taken AS (
         DELETE FROM delivery_wait WHERE seq IN (
           SELECT seq FROM delivery_wait
            WHERE webhook_id = $1 AND not_before <= clock_timestamp() AND ($3 = 'all' OR NOT manual)
            ORDER BY not_before, seq LIMIT $2)
         RETURNING seq, message, attempt, manual, traceparent, not_before)
       SELECT * FROM taken`,
      [webhookId, limit, filter],
    );
    rows.sort((a, b) => a.not_before.getTime() - b.not_before.getTime() || Number(BigInt(a.seq) - BigInt(b.seq)));
    return rows.map(({ seq, message, attempt, manual, traceparent }) => ({
      seq,
      message,
      attempt,
      manual,
      traceparent,
    }));
  }

  /**
   * Moves the `nextAttemptAt` of the entries before these repeats to the starts they were given now (in the caller's
   * transaction): a repeat that waited for room in its webhook's rate limit is made later than its entry said when it
   * was logged, and the log shows when it is really made. Only later, never earlier (an entry written again keeps the
   * latest).
   */
  async noteStarts(
    repeats: Array<{ deliveryId: string; attempt: number; at: number }>,
    runner?: QueryRunner,
  ): Promise<void> {
    if (repeats.length === 0) return;
    await (runner ?? this.db).query(
      `UPDATE webhook_log l SET next_attempt_at = to_timestamp(r.at / 1000.0)
         FROM json_to_recordset($1::json) AS r("deliveryId" uuid, attempt int, at float8, "from" timestamptz, "to" timestamptz)
        WHERE l.delivery_id = r."deliveryId" AND l.attempt = r.attempt - 1 AND NOT l.manual
          AND l.created_at BETWEEN r."from" AND r."to"
          AND l.next_attempt_at IS NOT NULL AND l.next_attempt_at < to_timestamp(r.at / 1000.0)`,
      [JSON.stringify(repeats.map((repeat) => ({ ...repeat, ...logOfDeliveryRange(repeat.deliveryId) })))],
    );
  }

  /** Drops every waiting delivery of a webhook that no longer exists. */
  async dropWebhook(webhookId: string): Promise<number> {
    const [{ n }]: Array<{ n: number }> = await this.db.query(
      `WITH gone AS (DELETE FROM delivery_wait WHERE webhook_id = $1 RETURNING 1) SELECT count(*)::int AS n FROM gone`,
      [webhookId],
    );
    return n;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.batcher.drain();
  }
}
