import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { WebhookCache } from '../webhook/webhook.cache.js';
import { DeliveryPublisher } from './delivery.publisher.js';
import { DeliveryWaitRepository, type Waiting } from './delivery-wait.repository.js';
import { WebhookRateLimiter } from './webhook-rate.limiter.js';

/** How often each process looks for due rows. */
export const PUMP_TICK_MS = 200;
/** How far ahead a rate-limited webhook's starts are booked per tick (deliveries then wait that long in a process). */
export const PUMP_WINDOW_MS = 500;
/** At most this many deliveries of one webhook are released per tick (an unlimited or disabled webhook's backlog). */
const MAX_PER_WEBHOOK_TICK = 1_000;
/** At most this many webhooks are served per tick (the rest in the next). */
const MAX_WEBHOOKS_PER_TICK = 500;
/** Webhooks served side by side (each in a transaction of its own). */
const CONCURRENT_WEBHOOKS = 4;

/**
 * Releases the deliveries waiting in the schedule (delivery.delivery_wait, {@link DeliveryWaitRepository}) — one loop
 * per dispatcher process, every PUMP_TICK_MS. Per webhook with due rows, in a transaction that holds the webhook's
 * advisory lock (another process skips it and serves other webhooks), at the webhook's settings as they are now:
 * - rate-limited: books as many starts as fit in the next PUMP_WINDOW_MS at its current `maxPerSecond` (one booking
 *   per delivery, carried in `x-rate-at`) and publishes that many, first in first out, to the delivery queue: a raised,
 *   lowered or removed limit applies from the next tick; a repeat's start becomes the `nextAttemptAt` of the entry
 *   before it (the real time of that attempt, later than it was scheduled);
 * - no limit: publishes up to MAX_PER_WEBHOOK_TICK of them;
 * - disabled: its automatic deliveries are published without booking, and the gate logs each `skipped` (nothing is
 *   sent); tests and resends are booked as above;
 * - deleted: its rows are dropped.
 * The published messages are confirmed before the rows are deleted (the same transaction): a process that dies in
 * between leaves them waiting, and they are published again (at least once; a message whose attempt is then made twice
 * is as rare as a redelivery after a crash).
 */
@Injectable()
export class DeliveryWaitPump implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(DeliveryWaitPump.name);
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private stopped = false;
  private failing = false;

  constructor(
    private readonly waits: DeliveryWaitRepository,
    private readonly rate: WebhookRateLimiter,
    private readonly cache: WebhookCache,
    private readonly publisher: DeliveryPublisher,
  ) {}

  onApplicationBootstrap(): void {
    this.schedule();
  }

  /** Stops releasing before the consumers stop (DispatcherLifecycle): what still waits stays in the table. */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.tick().finally(() => {
        this.running = undefined;
        this.schedule();
      });
    }, PUMP_TICK_MS);
  }

  /** One round over the webhooks with due rows; how many deliveries it released. */
  async tick(): Promise<number> {
    try {
      const webhooks = await this.waits.webhooksDue(MAX_WEBHOOKS_PER_TICK);
      let released = 0;
      for (let i = 0; i < webhooks.length && !this.stopped; i += CONCURRENT_WEBHOOKS) {
        const counts = await Promise.all(webhooks.slice(i, i + CONCURRENT_WEBHOOKS).map((id) => this.serve(id)));
        released += counts.reduce((sum, n) => sum + n, 0);
      }
      if (this.failing) this.logger.log('the schedule of waiting deliveries is served again');
      this.failing = false;
      return released;
    } catch (error) {
      // The database or the broker is away: the rows wait, and the next tick tries again.
      if (!this.failing) {
        this.logger.warn(`waiting deliveries not released (${(error as Error).message}); retrying`);
      }
      this.failing = true;
      return 0;
    }
  }

  private async serve(webhookId: string): Promise<number> {
    const webhook = await this.cache.forDelivery(webhookId);
    if (!webhook) {
      await this.waits.dropWebhook(webhookId);
      return 0;
    }
    const released = await this.waits.inWebhookLock(webhookId, async (runner) => {
      let count = 0;
      if (!webhook.enabled) {
        // Not sent: the gate logs each one `skipped`, as it does any delivery of a disabled webhook.
        const skipped = await this.waits.take(runner, webhookId, MAX_PER_WEBHOOK_TICK, 'automatic');
        await this.publish(skipped);
        count += skipped.length;
      }
      if (webhook.maxPerSecond === null) {
        const free = await this.waits.take(runner, webhookId, MAX_PER_WEBHOOK_TICK);
        await this.publish(free);
        return count + free.length;
      }
      const window = await this.rate.bookWindow(
        runner,
        webhookId,
        webhook.maxPerSecond,
        PUMP_WINDOW_MS,
        MAX_PER_WEBHOOK_TICK,
      );
      const due = await this.waits.take(runner, webhookId, window.count);
      if (due.length === 0) return count;
      const startAt = (i: number) => window.firstAt + i * window.intervalMs;
      await this.publish(due, startAt);
      await this.waits.noteStarts(
        due.flatMap((row, i) =>
          row.attempt > 1 && !row.manual
            ? [{ deliveryId: row.message.deliveryId, attempt: row.attempt, at: startAt(i) }]
            : [],
        ),
        runner,
      );
      await this.rate.commitWindow(runner, webhookId, startAt(due.length));
      return count + due.length;
    });
    return released ?? 0;
  }

  /** Publishes to the delivery queue, all confirmed, the i-th with its booked start `startAt(i)` if any. */
  private async publish(rows: Waiting[], startAt?: (i: number) => number): Promise<void> {
    await Promise.all(
      rows.map((row, i) =>
        this.publisher.publish(
          row.message,
          row.attempt,
          { to: 'deliveries', rateAt: startAt?.(i) },
          { traceparent: row.traceparent },
        ),
      ),
    );
  }
}
