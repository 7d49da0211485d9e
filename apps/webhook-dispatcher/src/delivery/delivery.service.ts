import { Injectable, Logger } from '@nestjs/common';
import type { DeliveryMessage } from '#messaging';
import { WebhookDispatcherConfig } from '../config/webhook-dispatcher.config.js';
import { DeliveryRepository } from './delivery.repository.js';
import { DispatcherMetrics } from '../metrics/dispatcher.metrics.js';
import { WebhookCache } from '../webhook/webhook.cache.js';
import { DeadlineList } from './deadline-list.js';
import { DeliveryAttempt, logFieldsOf, type Lane } from './delivery.attempt.js';
import { DeliveryLogWriter } from './delivery-log.writer.js';
import { DeliveryGate } from './delivery.gate.js';
import { DeliveryPublisher } from './delivery.publisher.js';
import { WebhookSlots } from './webhook-slots.js';

export type { Lane } from './delivery.attempt.js';

/** Concurrent attempts per webhook and process in the delivery queue (see WebhookSlots). */
export const MAX_IN_FLIGHT_PER_WEBHOOK = 16;
/** An attempt running longer than this makes its webhook slow (while it runs). */
const SLOW_WEBHOOK_MS = 1_000;
/** An attempt that took longer than this (or the whole timeout, if shorter) makes its webhook slow for a while. */
const STICKY_SLOW_MS = 5_000;
/** How long a webhook stays slow after such an attempt. */
const SLOW_FOR_MS = 60_000;
/** Deliveries of one busy (not slow) webhook that may wait for a slot before the excess moves to the slow lane. */
const MAX_WAITERS_PER_WEBHOOK = 4 * MAX_IN_FLIGHT_PER_WEBHOOK;

/**
 * How the message may already have been worked on: `guard`, a stand-in for an attempt that ran long (it may have
 * ended since); `redelivered`, given back by the broker after a dispatcher stopped or lost its connection before
 * acking (its attempt may have been made and logged). Either is dropped if its attempt is logged: a repeat or
 * the parking was queued before the log was written, so nothing is lost by dropping it.
 */
export type Origin = 'fresh' | 'guard' | 'redelivered';

export type AttemptOutcome = 'attempted' | 'moved-to-slow-lane' | 'handed-over' | 'dropped';

/** A delivery message's attempt as its queue hands it over (DeliveryConsumer). */
export interface AttemptRequest {
  message: DeliveryMessage;
  /** Its number (`x-attempt`). */
  attempt: number;
  /** The queue it came from (default: the delivery queue). */
  lane?: Lane;
  /** How it may already have been worked on (default: fresh). */
  origin?: Origin;
  /** The start booked for it in its webhook's rate limit (`x-rate-at`). */
  rateAt?: number;
}

type QueuedAttempt = AttemptRequest & { lane: Lane; origin: Origin };

/**
 * Takes a delivery message to its attempt (DeliveryAttempt): drops it if that attempt is already logged, finds its
 * snapshot and webhook, lets the webhook's settings decide (DeliveryGate: disabled, superseded, rate limit), keeps
 * it in its lane or moves it to the webhook's shard of the slow lane, and, in the delivery queue, hands the message
 * over to a stand-in when the attempt runs long.
 */
@Injectable()
export class DeliveryService {
  private readonly logger = new Logger(DeliveryService.name);
  private readonly slots: WebhookSlots;
  /** Attempts in the delivery queue that hand their message over if still running after SLOW_WEBHOOK_MS. */
  private readonly handOvers = new DeadlineList(SLOW_WEBHOOK_MS);
  /** Attempts still running after their message was handed over. */
  private readonly detached = new Map<string, Promise<unknown>>();
  /** Recovered attempts running in this process, by attempt. */
  private readonly recovering = new Map<string, Promise<AttemptOutcome>>();

  constructor(
    private readonly config: WebhookDispatcherConfig,
    private readonly cache: WebhookCache,
    private readonly deliveries: DeliveryRepository,
    private readonly attempts: DeliveryAttempt,
    private readonly gate: DeliveryGate,
    private readonly log: DeliveryLogWriter,
    private readonly publisher: DeliveryPublisher,
    private readonly metrics: DispatcherMetrics,
  ) {
    this.slots = new WebhookSlots({
      cap: MAX_IN_FLIGHT_PER_WEBHOOK,
      slowMs: SLOW_WEBHOOK_MS,
      // A hanging receiver's attempts end at the timeout: with a timeout under 5 s that must still count.
      stickyMs: Math.min(STICKY_SLOW_MS, Math.max(config.timeoutMs - 1, SLOW_WEBHOOK_MS)),
      slowForMs: SLOW_FOR_MS,
      maxWaiters: MAX_WAITERS_PER_WEBHOOK,
    });
  }

  async attempt(request: AttemptRequest): Promise<AttemptOutcome> {
    const queued: QueuedAttempt = { lane: 'normal', origin: 'fresh', ...request };
    const { message, attempt } = queued;
    if (message.recoverId === undefined) return this.attemptOnce(queued);
    // Two copies of a recover's attempt (its job queued it again after a process stopped) in this process at once:
    // the second waits for the first, then finds it logged.
    const key = detachedKey(message, attempt);
    const earlier = this.recovering.get(key);
    if (earlier) await earlier.catch(() => undefined);
    const running = this.attemptOnce(queued);
    this.recovering.set(key, running);
    return running.finally(() => this.recovering.get(key) === running && this.recovering.delete(key));
  }

  private async attemptOnce({ message, attempt, lane, origin, rateAt }: QueuedAttempt): Promise<AttemptOutcome> {
    if (origin !== 'fresh') {
      // The attempt it stands in for may still be finishing here (its log write waiting out a database outage longer
      // than the guard delay): let it finish first, or the check below would find it unlogged and attempt it again.
      await this.detached.get(detachedKey(message, attempt));
      const logged = await this.log.attemptLogged(message.deliveryId, attempt, message.manual === true);
      if (logged === 'yes') {
        this.metrics.scheduled.inc({ decision: origin === 'guard' ? 'stand_in_dropped' : 'redelivery_dropped' });
        return 'dropped';
      }
      if (logged === 'unsure') {
        // The database was just away; the attempt may have been made in another process whose log write is still
        // waiting to be retried. Look again after another guard delay rather than attempt it twice.
        await this.publisher.publish(message, attempt, { to: 'guard' });
        return 'handed-over';
      }
    }
    const snapshot = message.snapshot ?? (await this.deliveries.findSnapshot(message.deliveryId));
    if (!snapshot) {
      this.logger.warn({
        msg: `delivery ${message.deliveryId} no longer exists (webhook deleted); dropped`,
        deliveryId: message.deliveryId,
      });
      return 'dropped';
    }
    const webhook = await this.cache.forDelivery(snapshot.webhookId);
    if (!webhook) {
      // Deleted since: nothing to deliver to. Its deliveries and their log go too, if the change message (or a
      // delivery of the same webhook before) has not taken them yet.
      await this.deliveries.deleteOfDeletedWebhook(snapshot.webhookId);
      return 'dropped';
    }
    const gate = await this.gate.pass(message, attempt, snapshot, webhook, rateAt);
    if (gate === 'dropped' || gate === 'handed-over') return gate;

    // The slow and recover lanes attempt within their own prefetch, without a per-webhook cap.
    const release = lane === 'normal' ? await this.slots.acquire(webhook.id) : this.slots.track(webhook.id);
    if (!release) {
      // Slow or saturated webhook: its delivery waits in the slow lane, out of the healthy webhooks' way, in the
      // webhook's own shard of it — with the start it booked, so that its slot in the rate limit is used there.
      await this.publisher.publish({ ...message, snapshot }, attempt, {
        to: 'slow-lane',
        webhookId: webhook.id,
        rateAt: gate.rateAt,
      });
      this.metrics.scheduled.inc({ decision: 'slow_lane' });
      return 'moved-to-slow-lane';
    }

    const context = { message, attempt, snapshot, webhook, lane, release };
    if (lane !== 'normal') return this.attempts.make({ ...context, sent: () => undefined });
    // In the delivery queue an attempt whose POST is still running after SLOW_WEBHOOK_MS gives its message back: a
    // message left unacked for the whole timeout would hold a prefetch slot, and it pins the quorum queue's log,
    // which RabbitMQ then truncates in one burst that stalls every queue. A stand-in waits in the guard queue
    // instead. At most DISPATCHER_CONCURRENCY attempts run detached, so the prefetch still bounds the work.
    let handOverDue = () => {};
    const handOver = new Promise<'handed-over'>((resolve) => (handOverDue = () => resolve('handed-over')));
    let cancelHandOver = () => {};
    if (this.detached.size < this.config.concurrency) cancelHandOver = this.handOvers.add(() => handOverDue());
    const running = this.attempts.make({ ...context, sent: () => cancelHandOver() });
    try {
      if ((await Promise.race([running, handOver])) === 'attempted') return 'attempted';
    } finally {
      cancelHandOver();
    }
    const fields = logFieldsOf(message, snapshot, webhook);
    const detached = running.catch((error: Error) =>
      // Not logged: the stand-in attempts it again once its delay is over.
      this.logger.error({
        msg: `attempt ${attempt} of delivery ${message.deliveryId} failed: ${error.message}`,
        ...fields,
      }),
    );
    const key = detachedKey(message, attempt);
    this.detached.set(key, detached);
    void detached.finally(() => this.detached.get(key) === detached && this.detached.delete(key));
    try {
      // A stand-in: it comes back to the delivery queue after the guard delay.
      await this.publisher.publish({ ...message, snapshot }, attempt, { to: 'guard' });
    } catch (error) {
      // No stand-in: the message stays ours until the attempt is logged, as without a hand-over.
      this.logger.warn({
        msg: `no stand-in for delivery ${message.deliveryId} (${(error as Error).message}); holding it`,
        ...fields,
      });
      return running;
    }
    this.metrics.scheduled.inc({ decision: 'handed_over' });
    return 'handed-over';
  }

  /** Attempts still running whose messages were handed over (their stand-ins wait in the guard queue). */
  get detachedCount(): number {
    return this.detached.size;
  }

  /** Waits up to `ms` for attempts whose messages were handed over (graceful shutdown). */
  async settleDetached(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.detached.values()]),
      new Promise((resolve) => (timer = setTimeout(resolve, ms))),
    ]);
    clearTimeout(timer);
  }
}

/** An attempt of a delivery: its number, and whether it is manual (a resend may share the number of a repeat). */
const detachedKey = (message: DeliveryMessage, attempt: number) =>
  `${message.deliveryId} ${attempt} ${message.manual === true ? 'manual' : 'automatic'}`;
