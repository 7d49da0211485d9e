import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, QueryRunner } from 'typeorm';
import { DatabaseRetry } from '../common/database-retry.js';

/** A delivery whose booked start is at most this far ahead waits for it in its process; a later one in the schedule. */
export const HOLD_MS = 1_000;

/**
 * `maxPerSecond`, summed over every dispatcher process: a generic cell rate algorithm kept in PostgreSQL
 * (delivery.webhook_rate, one row per limited webhook). Each request books the webhook's next start time once and
 * moves it on by 1/maxPerSecond, so requests start at least that far apart whichever process makes them. A delivery
 * books here ({@link tryBook}) only when its start is at most HOLD_MS ahead and nothing of its webhook waits in the
 * schedule before it; otherwise it waits in the schedule (delivery.delivery_wait), and the pump (DeliveryWaitPump)
 * books the waiting ones a short window ahead at a time, at the limit the webhook has then ({@link bookWindow}). The
 * booked start travels with the message (`x-rate-at`), so a delivery never books twice, whichever lane it takes.
 * Times are the database's (clock_timestamp), the one clock every process shares; a booking answers Unix ms.
 */
@Injectable()
export class WebhookRateLimiter {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly retry: DatabaseRetry,
  ) {}

  /**
   * Books the webhook's next start if it is at most HOLD_MS ahead and no delivery of the webhook waits in the schedule
   * already (it would go before this one): its time (Unix ms) and how long from now until then (ms, ≥ 0); null when
   * the delivery must wait in the schedule instead.
   */
  async tryBook(webhookId: string, perSecond: number): Promise<{ at: number; waitMs: number } | null> {
    const intervalMs = 1_000 / perSecond;
    const rows: Array<{ at: number; wait_ms: number }> = await this.retry.run(() =>
      this.db.query(
        `INSERT INTO webhook_rate AS r (webhook_id, next_at)
         SELECT $1, clock_timestamp() + $2 * interval '1 millisecond'
          WHERE NOT EXISTS (SELECT 1 FROM delivery_wait w WHERE w.webhook_id = $1 AND w.not_before <= clock_timestamp())
         ON CONFLICT (webhook_id) DO UPDATE
           SET next_at = greatest(r.next_at, clock_timestamp()) + $2 * interval '1 millisecond'
         WHERE r.next_at <= clock_timestamp() + $3 * interval '1 millisecond'
         RETURNING (extract(epoch FROM r.next_at) * 1000 - $2)::float8 AS at,
                   greatest(0, extract(epoch FROM r.next_at - clock_timestamp()) * 1000 - $2)::float8 AS wait_ms`,
        [webhookId, intervalMs, HOLD_MS],
      ),
    );
    const [row] = rows;
    return row ? { at: Math.round(row.at), waitMs: row.wait_ms } : null;
  }

  /**
   * Books the webhook's next start, however far ahead: its time (Unix ms) and how long from now until then (ms, ≥ 0).
   * For a delivery whose earlier booking went stale (it was released from the schedule but reached the gate long
   * after its start): it is at the head of its webhook's line, and its start must fit the limit that holds now.
   */
  async book(webhookId: string, perSecond: number): Promise<{ at: number; waitMs: number }> {
    const intervalMs = 1_000 / perSecond;
    const [row]: Array<{ at: number; wait_ms: number }> = await this.retry.run(() =>
      this.db.query(
        `INSERT INTO webhook_rate AS r (webhook_id, next_at)
         VALUES ($1, clock_timestamp() + $2 * interval '1 millisecond')
         ON CONFLICT (webhook_id) DO UPDATE
           SET next_at = greatest(r.next_at, clock_timestamp()) + $2 * interval '1 millisecond'
         RETURNING (extract(epoch FROM r.next_at) * 1000 - $2)::float8 AS at,
                   greatest(0, extract(epoch FROM r.next_at - clock_timestamp()) * 1000 - $2)::float8 AS wait_ms`,
        [webhookId, intervalMs],
      ),
    );
    return { at: Math.round(row.at), waitMs: row.wait_ms };
  }

  /**
   * In the caller's transaction (which holds the webhook's schedule lock): how many starts fit between now and
   * `windowMs` ahead at `perSecond` (at most `max`), and the first of them (Unix ms). The row is locked until the
   * transaction ends; {@link commitWindow} moves it past the starts actually used.
   */
  async bookWindow(
    runner: QueryRunner,
    webhookId: string,
    perSecond: number,
    windowMs: number,
    max: number,
  ): Promise<{ firstAt: number; intervalMs: number; count: number }> {
    const intervalMs = 1_000 / perSecond;
    await runner.query(
      `INSERT INTO webhook_rate (webhook_id, next_at) VALUES ($1, clock_timestamp()) ON CONFLICT (webhook_id) DO NOTHING`,
      [webhookId],
    );
    const [row]: Array<{ first_at: number; ahead_ms: number }> = await runner.query(
      `SELECT (extract(epoch FROM greatest(next_at, clock_timestamp())) * 1000)::float8 AS first_at,
              (extract(epoch FROM greatest(next_at, clock_timestamp()) - clock_timestamp()) * 1000)::float8 AS ahead_ms
         FROM webhook_rate WHERE webhook_id = $1 FOR UPDATE`,
      [webhookId],
    );
    const count = row.ahead_ms >= windowMs ? 0 : Math.floor((windowMs - row.ahead_ms) / intervalMs) + 1;
    return { firstAt: row.first_at, intervalMs, count: Math.min(count, max) };
  }

  /** Moves the webhook's next start to `nextAt` (Unix ms), after the starts a {@link bookWindow} handed out. */
  async commitWindow(runner: QueryRunner, webhookId: string, nextAt: number): Promise<void> {
    await runner.query(`UPDATE webhook_rate SET next_at = to_timestamp($2::float8 / 1000) WHERE webhook_id = $1`, [
      webhookId,
      nextAt,
    ]);
  }
}
