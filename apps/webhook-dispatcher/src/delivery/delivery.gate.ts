import { Injectable } from '@nestjs/common';
import { randomUUIDv7 } from 'node:crypto';
import type { DeliveryMessage, DeliverySnapshot } from '#messaging';
import { WebhookDispatcherConfig } from '../config/webhook-dispatcher.config.js';
import { DispatcherMetrics } from '../metrics/dispatcher.metrics.js';
import { RecoverStates } from '../recover/recover-state.cache.js';
import { WebhookCache, type SigningWebhook } from '../webhook/webhook.cache.js';
import { DeliveryLogWriter, notAttemptedRecord } from './delivery-log.writer.js';
import { DeliveryPublisher } from './delivery.publisher.js';
import { SupersededRepository } from './superseded.repository.js';
import { HOLD_MS, WebhookRateLimiter } from './webhook-rate.limiter.js';

/** `open`: make the attempt now; otherwise what became of the message instead. */
export type GateDecision = 'open' | 'dropped' | 'handed-over';

/**
 * What a delivery must pass before its attempt, in its webhook's settings: a disabled webhook's delivery is logged
 * `skipped`, a superseded repeat `superseded` (nothing sent, nothing scheduled), and a rate-limited webhook's delivery
 * waits for its booked start — here when it is near, in a rate queue when it is not.
 */
@Injectable()
export class DeliveryGate {
  constructor(
    private readonly config: WebhookDispatcherConfig,
    private readonly log: DeliveryLogWriter,
    private readonly publisher: DeliveryPublisher,
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
    /** The start booked for it in its webhook's rate schedule (back from a rate queue). */
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
    // A test or resend never waits behind the webhook's backlog: it is one request, asked for now.
    if (webhook.maxPerSecond === null || byHand) return 'open';
    // Booked once (a delivery back from a rate queue carries its time), then waited for.
    const booked =
      rateAt === undefined
        ? await this.rate.book(webhook.id, webhook.maxPerSecond)
        : { at: rateAt, waitMs: Math.max(0, rateAt - Date.now()) };
    if (booked.waitMs <= HOLD_MS) {
      if (booked.waitMs > 0) {
        await new Promise((resolve) => setTimeout(resolve, booked.waitMs));
        // Disabled, or its recover cancelled, while it waited: not sent either.
        const now = await this.cache.forDelivery(webhook.id);
        if (!now?.enabled) return this.notAttempted('skipped', message, attempt, snapshot, webhook);
        if (message.recoverId !== undefined && (await this.recovers.isCancelled(message.recoverId))) {
          this.metrics.scheduled.inc({ decision: 'recover_cancelled' });
          return 'dropped';
        }
      }
      return 'open';
    }
    // The longest rate queue that ends before its start.
    const delayMs = [...this.config.rateDelaysMs].reverse().find((delay) => delay <= booked.waitMs - HOLD_MS / 2);
    await this.publisher.publish({ ...message, snapshot }, attempt, {
      to: 'rate',
      delayMs: delayMs ?? this.config.rateDelaysMs[0],
      at: booked.at,
    });
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
