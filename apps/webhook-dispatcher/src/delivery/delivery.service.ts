import { Injectable, Logger } from '@nestjs/common';
import { randomUUIDv7 } from 'node:crypto';
import { buildWebhookHeaders, type WebhookContentType } from '#domain';
import {
  AmqpClient,
  ATTEMPT_HEADER,
  EXCHANGES,
  GUARD_HEADER,
  guardQueueName,
  ROUTING_KEYS,
  retryQueueName,
  slowLaneRoutingKey,
  slowLaneShard,
  type DeliveryMessage,
  type DeliverySnapshot,
} from '#messaging';
import { WebhookDispatcherConfig } from '../config/webhook-dispatcher.config.js';
import { DeliveryRepository } from '../fan-out/delivery.repository.js';
import { DispatcherMetrics } from '../metrics/dispatcher.metrics.js';
import { WebhookCache, type SigningWebhook } from '../webhook/webhook.cache.js';
import { DeadlineList } from './deadline-list.js';
import { DeliveryLogWriter } from './delivery-log.writer.js';
import { HttpSender } from './http.sender.js';
import { nextStep } from './retry.policy.js';
import { WebhookSlots } from './webhook-slots.js';

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

/** Which queue a delivery message came from. */
export type Lane = 'normal' | 'slow';

/**
 * How the message may already have been worked on: `guard`, a stand-in for an attempt that ran long (it may have
 * ended since); `redelivered`, given back by the broker after a dispatcher stopped or lost its connection before
 * acking (its attempt may have been made and logged). Either is dropped if its attempt is logged: a repeat or
 * the parking was queued before the log was written, so nothing is lost by dropping it.
 */
export type Origin = 'fresh' | 'guard' | 'redelivered';

export type AttemptOutcome = 'attempted' | 'moved-to-slow-lane' | 'handed-over' | 'dropped';

/** One attempt of one delivery: sign the stored body, POST it, log it, and schedule what follows. */
@Injectable()
export class DeliveryService {
  private readonly logger = new Logger(DeliveryService.name);
  private readonly slots: WebhookSlots;
  /** Attempts in the delivery queue that hand their message over if still running after SLOW_WEBHOOK_MS. */
  private readonly handOvers = new DeadlineList(SLOW_WEBHOOK_MS);
  /** Attempts still running after their message was handed over. */
  private readonly detached = new Map<string, Promise<unknown>>();

  constructor(
    private readonly config: WebhookDispatcherConfig,
    private readonly cache: WebhookCache,
    private readonly deliveries: DeliveryRepository,
    private readonly sender: HttpSender,
    private readonly log: DeliveryLogWriter,
    private readonly amqp: AmqpClient,
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

  async attempt(
    message: DeliveryMessage,
    attempt: number,
    lane: Lane = 'normal',
    origin: Origin = 'fresh',
  ): Promise<AttemptOutcome> {
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
        await this.standIn(message, attempt);
        return 'handed-over';
      }
    }
    const snapshot = message.snapshot ?? (await this.deliveries.findSnapshot(message.deliveryId));
    if (!snapshot) {
      this.logger.warn(`delivery ${message.deliveryId} no longer exists (webhook deleted); dropped`);
      return 'dropped';
    }
    const webhook = await this.cache.forDelivery(snapshot.webhookId);
    if (!webhook) return 'dropped'; // deleted since: nothing to deliver to, and its log is gone with it
    if (webhook.secrets.length === 0) throw new Error(`webhook ${webhook.id} has no valid signing secret`);

    const release = lane === 'slow' ? this.slots.track(webhook.id) : await this.slots.acquire(webhook.id);
    if (!release) {
      // Slow or saturated webhook: its delivery waits in the slow lane, out of the healthy webhooks' way, in the
      // webhook's own shard of it.
      await this.amqp.publish(
        EXCHANGES.deliveries,
        slowLaneRoutingKey(slowLaneShard(webhook.id)),
        Buffer.from(JSON.stringify({ ...message, snapshot })),
        { messageId: message.deliveryId, headers: { [ATTEMPT_HEADER]: attempt } },
      );
      this.metrics.scheduled.inc({ decision: 'slow_lane' });
      return 'moved-to-slow-lane';
    }

    if (lane === 'slow') return this.run(message, attempt, snapshot, webhook, release, lane, () => undefined);
    // In the delivery queue an attempt whose POST is still running after SLOW_WEBHOOK_MS gives its message back: a
    // message left unacked for the whole timeout would hold a prefetch slot, and it pins the quorum queue's log,
    // which RabbitMQ then truncates in one burst that stalls every queue. A stand-in waits in the guard queue
    // instead. At most DISPATCHER_CONCURRENCY attempts run detached, so the prefetch still bounds the work.
    let handOverDue = () => {};
    const handOver = new Promise<'handed-over'>((resolve) => (handOverDue = () => resolve('handed-over')));
    let cancelHandOver = () => {};
    if (this.detached.size < this.config.concurrency) cancelHandOver = this.handOvers.add(() => handOverDue());
    const running = this.run(message, attempt, snapshot, webhook, release, lane, () => cancelHandOver());
    try {
      if ((await Promise.race([running, handOver])) === 'attempted') return 'attempted';
    } finally {
      cancelHandOver();
    }
    const detached = running.catch((error: Error) =>
      // Not logged: the stand-in attempts it again once its delay is over.
      this.logger.error(`attempt ${attempt} of delivery ${message.deliveryId} failed: ${error.message}`),
    );
    const key = detachedKey(message, attempt);
    this.detached.set(key, detached);
    void detached.finally(() => this.detached.get(key) === detached && this.detached.delete(key));
    try {
      await this.standIn({ ...message, snapshot }, attempt);
    } catch (error) {
      // No stand-in: the message stays ours until the attempt is logged, as without a hand-over.
      this.logger.warn(`no stand-in for delivery ${message.deliveryId} (${(error as Error).message}); holding it`);
      return running;
    }
    this.metrics.scheduled.inc({ decision: 'handed_over' });
    return 'handed-over';
  }

  /** Queues a stand-in for this attempt in the guard queue: it comes back to the delivery queue after the delay. */
  private async standIn(message: DeliveryMessage, attempt: number): Promise<void> {
    await this.amqp.publish('', guardQueueName(this.config.guardDelayMs), Buffer.from(JSON.stringify(message)), {
      messageId: message.deliveryId,
      headers: { [ATTEMPT_HEADER]: attempt, [GUARD_HEADER]: 1 },
    });
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

  /** POSTs, logs and schedules what follows; resolves once the attempt is logged. */
  private async run(
    message: DeliveryMessage,
    attempt: number,
    snapshot: DeliverySnapshot,
    webhook: SigningWebhook,
    release: () => void,
    lane: Lane,
    /** Called once the POST has its outcome (before the log write). */
    sent: () => void,
  ): Promise<'attempted'> {
    this.metrics.inFlight.inc();
    const createdAt = new Date();
    let result;
    try {
      const headers = buildWebhookHeaders({
        webhookId: message.deliveryId,
        timestamp: createdAt,
        body: snapshot.body,
        secrets: webhook.secrets.map((s) => s.secret),
        contentType: snapshot.contentType as WebhookContentType,
      });
      result = await this.sender.send(
        webhook.url,
        { ...headers, 'user-agent': 'payments-webhooks/1.0' },
        snapshot.body,
        lane,
      );
    } finally {
      this.metrics.inFlight.dec();
      release();
      sent();
    }

    const succeeded = result.status >= 200 && result.status < 300;
    this.metrics.deliveries.inc({
      outcome: succeeded ? 'success' : result.status === 0 ? 'no_response' : 'http_error',
    });
    this.metrics.latency.observe(result.durationMs / 1000);
    if (attempt === 1 && snapshot.occurredAt) {
      this.metrics.eventAge.observe((Date.now() - Date.parse(snapshot.occurredAt)) / 1000);
    }

    const step = nextStep({
      succeeded,
      attempt,
      retryOnError: webhook.retryOnError,
      manual: message.manual === true,
      delaysMs: this.config.retryDelaysMs,
    });
    let nextAttemptAt: Date | null = null;
    if (step.kind === 'retry') {
      nextAttemptAt = new Date(Date.now() + step.delayMs);
      await this.republish(message, step.attempt, retryQueueName(step.delayMs), snapshot);
      this.metrics.scheduled.inc({ decision: 'retry' });
    } else if (step.kind === 'give-up') {
      if (step.parked) {
        await this.park(message, attempt, snapshot);
        this.metrics.scheduled.inc({ decision: 'parked' });
      } else {
        this.metrics.scheduled.inc({ decision: 'failed' });
      }
    }

    await this.log.write({
      id: randomUUIDv7(),
      deliveryId: message.deliveryId,
      webhookId: webhook.id,
      attempt,
      eventType: snapshot.eventType,
      eventId: snapshot.eventId,
      request: {
        url: webhook.url,
        contentType: snapshot.contentType,
        version: snapshot.version,
        psp: snapshot.subject.psp ?? null,
        type: snapshot.subject.type ?? null,
        uuid: snapshot.subject.uuid,
      },
      status: result.status,
      durationMs: result.durationMs,
      error: result.error,
      responseExcerpt: result.responseExcerpt,
      createdAt,
      nextAttemptAt,
      manual: message.manual === true,
    });
    return 'attempted';
  }

  /** Sends the message to a delay queue; it dead-letters back to the delivery queue after the delay. */
  private async republish(message: DeliveryMessage, attempt: number, queue: string, snapshot: DeliverySnapshot) {
    await this.amqp.publish('', queue, Buffer.from(JSON.stringify({ ...message, snapshot })), {
      messageId: message.deliveryId,
      headers: { [ATTEMPT_HEADER]: attempt },
    });
  }

  private async park(message: DeliveryMessage, attempt: number, snapshot: DeliverySnapshot) {
    await this.amqp.publish(
      EXCHANGES.deadLetter,
      ROUTING_KEYS.parkedDeliveries,
      Buffer.from(JSON.stringify({ ...message, snapshot })),
      {
        messageId: message.deliveryId,
        headers: { [ATTEMPT_HEADER]: attempt },
      },
    );
  }
}

/** An attempt of a delivery: its number, and whether it is manual (a resend may share the number of a repeat). */
const detachedKey = (message: DeliveryMessage, attempt: number) =>
  `${message.deliveryId} ${attempt} ${message.manual === true ? 'manual' : 'automatic'}`;
