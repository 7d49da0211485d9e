import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { DatabaseRetry } from '../common/database-retry.js';

/** A delivery whose booked start is at most this far ahead waits for it in its process; a later one in a rate queue. */
export const HOLD_MS = 1_000;

/**
 * `maxPerSecond`, summed over every dispatcher process: a generic cell rate algorithm kept in PostgreSQL
 * (delivery.webhook_rate, one row per limited webhook). Each request books the webhook's next start time once and
 * moves it on by 1/maxPerSecond, so requests start at least that far apart whichever process makes them. A start at
 * most HOLD_MS ahead is waited for in the process; a later one in the rate queues (DeliveryService), the delivery
 * carrying its booked time (`x-rate-at`) so that it never books twice: a backlog drains at the limit, costs one
 * booking per delivery, and other webhooks' deliveries do not wait behind it. Times are the database's
 * (clock_timestamp), the one clock every process shares; the booking answers the start as Unix ms.
 */
@Injectable()
export class WebhookRateLimiter {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly retry: DatabaseRetry,
  ) {}

  /** Books the webhook's next start: its time (Unix ms) and how long from now until then (ms, ≥ 0). */
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
}
