import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { DatabaseRetry } from '../common/database-retry.js';

/** How far ahead a webhook's schedule may be booked: at most a second, and at most 200 requests' worth. */
export const holdMsOf = (perSecond: number): number => Math.min(1_000, (200 * 1_000) / perSecond);

/**
 * `maxPerSecond`, summed over every dispatcher process: a generic cell rate algorithm kept in PostgreSQL
 * (delivery.webhook_rate, one row per limited webhook). Each request books the webhook's next start time and moves
 * it on by 1/maxPerSecond, so requests start at least that far apart whichever process makes them. A booking is
 * taken only up to holdMsOf ahead (the process then waits for its time); when the schedule is full further ahead, it
 * takes none and answers null: the delivery waits in the rate queue and tries again (DeliveryService), so nothing is
 * lost, no prefetch is held for long and other webhooks' deliveries are not held up. Times are the database's
 * (clock_timestamp), the one clock every process shares.
 */
@Injectable()
export class WebhookRateLimiter {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly retry: DatabaseRetry,
  ) {}

  /** Milliseconds to wait before this request may start, or null when the schedule is full (try again later). */
  async book(webhookId: string, perSecond: number): Promise<number | null> {
    const intervalMs = 1_000 / perSecond;
    const rows: Array<{ wait_ms: number }> = await this.retry.run(() =>
      this.db.query(
        `INSERT INTO webhook_rate AS r (webhook_id, next_at)
         VALUES ($1, clock_timestamp() + $2 * interval '1 millisecond')
         ON CONFLICT (webhook_id) DO UPDATE
           SET next_at = greatest(r.next_at, clock_timestamp()) + $2 * interval '1 millisecond'
           WHERE greatest(r.next_at, clock_timestamp()) <= clock_timestamp() + $3 * interval '1 millisecond'
         RETURNING greatest(0, extract(epoch FROM r.next_at - clock_timestamp()) * 1000 - $2)::float8 AS wait_ms`,
        [webhookId, intervalMs, holdMsOf(perSecond)],
      ),
    );
    return rows.length === 0 ? null : rows[0].wait_ms;
  }
}
