import { Injectable, Logger } from '@nestjs/common';
import { randomUUIDv7 } from 'node:crypto';
import type { DeliveryMessage, DeliverySnapshot } from '#messaging';
import { activeTraceparent } from '#platform';
import { DispatcherMetrics } from '../metrics/dispatcher.metrics.js';
import { RecoverStates } from '../recover/recover-state.cache.js';
import { WebhookCache, type SigningWebhook } from '../webhook/webhook.cache.js';
import { DeliveryLogWriter, notAttemptedRecord } from './delivery-log.writer.js';
import { DeliveryWaitRepository } from './delivery-wait.repository.js';
import { SupersededRepository } from './superseded.repository.js';
import { HOLD_MS, WebhookRateLimiter } from './webhook-rate.limiter.js';

/**
 * A booked start further ahead than this came from a rate queue of an earlier release (they waited up to 60 s for
 * their start): such a delivery waits in the schedule rather than in the process. The pump's starts are never more
 * than its window ahead.
 */
const LEGACY_RATE_AT_MS = 2 * HOLD_MS;

/**
 * A booked start that passed more than this long ago is booked again (the delivery reached its gate that late): a
 * slow lane's or a busy delivery queue's wait is far shorter.
 */
const STALE_MS = 2_000;

/** A repeat's start this much later than when it came due is shown in the log (the entry before it). */
const NOTED_WAIT_MS = 100;

/**
 * After a webhook's delivery had to wait in the schedule, its next ones go there without trying to book for this long
 * (less than a pump tick): a burst of thousands then costs batched inserts, not one booking attempt each.
 */
const BACKLOGGED_MS = 100;

/**
 * `open`: make the attempt now, with the start it booked in its webhook's rate limit (kept if it moves to the slow
 * lane: it never books twice); otherwise what became of the message instead.
 */
export type GateDecision = { open: true; rateAt?: number } | 'dropped' | 'handed-over';

/**
 * What a delivery must pass before its attempt, in its webhook's settings: a disabled webhook's delivery is logged
 * `skipped`, a superseded repeat `superseded` (nothing sent, nothing scheduled), and a rate-limited webhook's delivery
 * waits for its booked start — here when it is near, in the schedule (delivery.delivery_wait, DeliveryWaitPump)
 * when it is not, or when deliveries of its webhook already wait there.
 */
@Injectable()
export class DeliveryGate {
  private readonly logger = new Logger(DeliveryGate.name);
  /** Webhooks whose deliveries wait in the schedule, until when (Unix ms) the gate takes that as still so. */
  private readonly backlogged = new Map<string, number>();

  constructor(
    private readonly log: DeliveryLogWriter,
    private readonly waits: DeliveryWaitRepository,
    private readonly metrics: DispatcherMetrics,
    private readonly rate: WebhookRateLimiter,
    private readonly superseded: SupersededRepository,
    private readonly recovers: RecoverStates,
    private readonly cache: WebhookCache,
  ) {}

  async pass(
    message: DeliveryMessage,
    attempt: number,
    snapshot: DeliverySnapshot,
    webhook: SigningWebhook,
    /** The start booked for it in its webhook's rate limit (released by the schedule, or moved to the slow lane). */
    rateAt?: number,
  ): Promise<GateDecision> {
    // A test or resend: one request the merchant asked for by hand.
    const byHand = message.manual === true && message.recoverId === undefined;
    if (!webhook.enabled && !byHand) {
      // Disabled since (a repeat that was waiting, a recovered delivery, or a delivery fanned out just before):
      // nothing is sent, and the entry says so, for a recover later. Tests and resends are the merchant's own asking,
      // and still made.
      return this.notAttempted('skipped', message, attempt, snapshot, webhook);
    }
    if (message.recoverId !== undefined && (await this.recovers.isCancelled(message.recoverId))) {
      // Its recover was cancelled: not made, and not logged (its latest outcome stays failed or skipped, so a later
      // recover sends it).
      this.metrics.scheduled.inc({ decision: 'recover_cancelled' });
      return 'dropped';
    }
    if (
      attempt > 1 &&
      message.manual !== true &&
      webhook.skipSupersededRepeats &&
      (await this.superseded.newerDelivered(snapshot))
    ) {
      // A repeat of an event whose subject has a newer event delivered to this webhook (by position, not arrival):
      // receivers that check the status through the API answer an outdated one with an error, and it would be
      // repeated for days. Only repeats: a first attempt is always made (the receiver has not heard of the event yet,
      // and it may say more than the status), and tests and resends are the merchant's own asking.
      return this.notAttempted('superseded', message, attempt, snapshot, webhook);
    }
    if (webhook.secrets.length === 0) throw new Error(`webhook ${webhook.id} has no valid signing secret`);
    if (webhook.maxPerSecond === null) return { open: true };
    if (byHand) {
      // A test or resend never waits behind the webhook's backlog: it takes the next start at once (the backlog
      // moves on by one), so the limit still holds.
      const booked = await this.rate.book(webhook.id, webhook.maxPerSecond);
      if (booked.waitMs > 0) await sleep(booked.waitMs);
      return { open: true, rateAt: booked.at };
    }
    if (rateAt !== undefined) {
      const waitMs = rateAt - Date.now();
      if (waitMs > LEGACY_RATE_AT_MS) {
        // From a rate queue of an earlier release: it waits in the schedule until then, and books again there.
        return this.wait(message, attempt, snapshot, rateAt);
      }
      if (waitMs >= -STALE_MS) {
        if (waitMs > 0)
          return (
            (await this.stoppedWhileWaiting(waitMs, message, attempt, snapshot, webhook)) ?? { open: true, rateAt }
          );
        return { open: true, rateAt };
      }
      // Its start passed long ago (it waited in a busy delivery queue): sent now, it would go out in a burst with
      // others as late, above the limit — perhaps one lowered since. It books again, at the head of the line.
      const again = await this.rate.book(webhook.id, webhook.maxPerSecond);
      if (again.waitMs > HOLD_MS) return this.wait(message, attempt, snapshot);
      const stopped =
        again.waitMs > 0 && (await this.stoppedWhileWaiting(again.waitMs, message, attempt, snapshot, webhook));
      return stopped || { open: true, rateAt: again.at };
    }
    // Booked once, then waited for — unless its start is far, or others of its webhook wait before it.
    if ((this.backlogged.get(webhook.id) ?? 0) > Date.now()) return this.wait(message, attempt, snapshot);
    const booked = await this.rate.tryBook(webhook.id, webhook.maxPerSecond);
    if (booked === null) {
      if (this.backlogged.size > 10_000) this.backlogged.clear();
      this.backlogged.set(webhook.id, Date.now() + BACKLOGGED_MS);
      return this.wait(message, attempt, snapshot);
    }
    if (attempt > 1 && message.manual !== true && booked.waitMs > NOTED_WAIT_MS) {
      await this.noteStart(message.deliveryId, attempt, booked.at);
    }
    const stopped =
      booked.waitMs > 0 && (await this.stoppedWhileWaiting(booked.waitMs, message, attempt, snapshot, webhook));
    return stopped || { open: true, rateAt: booked.at };
  }

  /**
   * A repeat made later than scheduled (its webhook's rate limit): the entry before it shows the real time. Only what
   * the log shows: when the database does not take it, the attempt is made anyway.
   */
  private async noteStart(deliveryId: string, attempt: number, at: number): Promise<void> {
    try {
      await this.waits.noteStarts([{ deliveryId, attempt, at }]);
    } catch (error) {
      this.logger.warn(`next attempt time of delivery ${deliveryId} not updated: ${(error as Error).message}`);
    }
  }

  /**
   * Waits for a booked start up to HOLD_MS away; then whether it is no longer to be made: its webhook disabled (logged
   * skipped), or its recover cancelled, meanwhile. Undefined: make it.
   */
  private async stoppedWhileWaiting(
    waitMs: number,
    message: DeliveryMessage,
    attempt: number,
    snapshot: DeliverySnapshot,
    webhook: SigningWebhook,
  ): Promise<GateDecision | undefined> {
    await sleep(waitMs);
    const now = await this.cache.forDelivery(webhook.id);
    if (!now?.enabled) return this.notAttempted('skipped', message, attempt, snapshot, webhook);
    if (message.recoverId !== undefined && (await this.recovers.isCancelled(message.recoverId))) {
      this.metrics.scheduled.inc({ decision: 'recover_cancelled' });
      return 'dropped';
    }
    return undefined;
  }

  /** Puts the delivery in its webhook's schedule (acked off the queue: it costs nothing while it waits). */
  private async wait(
    message: DeliveryMessage,
    attempt: number,
    snapshot: DeliverySnapshot,
    notBefore?: number,
  ): Promise<'handed-over'> {
    await this.waits.add({ message: { ...message, snapshot }, attempt, traceparent: activeTraceparent(), notBefore });
    this.metrics.scheduled.inc({ decision: 'rate_limited' });
    return 'handed-over';
  }

  /** Logs the attempt as not made (once: the log ignores a second entry of the same attempt). */
  private async notAttempted(
    outcome: 'skipped' | 'superseded',
    message: DeliveryMessage,
    attempt: number,
    snapshot: DeliverySnapshot,
    webhook: SigningWebhook,
  ): Promise<'dropped'> {
    const entry = { id: randomUUIDv7(), deliveryId: message.deliveryId, attempt, createdAt: new Date() };
    await this.log.write(notAttemptedRecord(outcome, { ...entry, url: webhook.url }, snapshot));
    this.metrics.scheduled.inc({ decision: outcome });
    return 'dropped';
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
