import { Injectable } from '@nestjs/common';
import { randomUUIDv7 } from 'node:crypto';
import {
  deliverySubjectOf,
  encodePayload,
  renderWebhookPayload,
  type PayloadObject,
  type WebhookContentType,
  type WebhookSubject,
  type WebhookVersion,
} from '#domain';
import type { DeliveryMessage, DeliverySnapshot, PlatformEvent } from '#messaging';
import pLimit, { type LimitFunction } from 'p-limit';
import { WebhookDispatcherConfig } from '../config/webhook-dispatcher.config.js';
import { DeliveryLogWriter, notAttemptedRecord } from '../delivery/delivery-log.writer.js';
import { DeliveryPublisher } from '../delivery/delivery.publisher.js';
import { DeliveryService } from '../delivery/delivery.service.js';
import { supersedingPosition } from '../delivery/superseded.repository.js';
import { DispatcherMetrics } from '../metrics/dispatcher.metrics.js';
import { WebhookCache } from '../webhook/webhook.cache.js';
import { deliveryCreatedAt, DeliveryRepository, type NewDelivery } from '../delivery/delivery.repository.js';
import { aboutItselfWhileDisabled, webhookMatches } from './webhook-matcher.js';

/**
 * One event in, one delivery per matching webhook out: renders each distinct (version, content type) body
 * once, records the deliveries, then makes each one's first attempt itself (DeliveryService, as if its message had
 * come from the delivery queue) and returns only once every first attempt is logged or handed over to a confirmed
 * message (a repeat, the slow lane, the rate schedule, a stand-in for one that runs long). The caller acks the event
 * after that: until then the event is the promise, and a process that dies first has it redelivered, fanned out
 * again (the same rows) and each attempt not logged yet made again. No delivery message exists for a first attempt
 * that succeeds — the broker's share of a delivery (#32, docs/benchmarks-dispatch.md).
 */
@Injectable()
export class FanOutService {
  /** First attempts running in this process; beyond DISPATCHER_CONCURRENCY the fan-out waits (its event unacked). */
  private readonly firstAttempts: LimitFunction;
  /** Set at shutdown: first attempts not started yet go to the delivery queue instead, for another process. */
  private stopping = false;

  constructor(
    private readonly cache: WebhookCache,
    private readonly deliveries: DeliveryRepository,
    private readonly attempts: DeliveryService,
    private readonly publisher: DeliveryPublisher,
    private readonly metrics: DispatcherMetrics,
    private readonly log: DeliveryLogWriter,
    config: WebhookDispatcherConfig,
  ) {
    this.firstAttempts = pLimit(config.concurrency);
  }

  /**
   * Graceful shutdown: the first attempts running finish; those not started yet become delivery messages, so that the
   * events in flight are acked soon and their deliveries left to another dispatcher.
   */
  stopFirstAttempts(): void {
    this.stopping = true;
  }

  /**
   * `subject`: the event's data, checked (readEventSubject); `redelivered`: the event came back after a process
   * stopped or a fan-out failed, so a first attempt already logged is not made again.
   */
  async fanOut(event: PlatformEvent, subject: WebhookSubject, redelivered = false): Promise<number> {
    const webhooks = (await this.cache.forMerchant(event.merchantId)).filter(
      (w) => webhookMatches(w, event) && !aboutItselfWhileDisabled(w, event, subject),
    );
    if (webhooks.length === 0) return 0;

    const logSubject = deliverySubjectOf(subject);
    // By which the deliveries' repeats are superseded by a newer event of the subject, or supersede an older one's.
    const position = supersedingPosition({ eventType: event.category, subject: logSubject, position: event.position });
    const bodies = new Map<string, string>();
    const render = (version: string, contentType: WebhookContentType) => {
      const key = `${version}|${contentType}`;
      let body = bodies.get(key);
      if (body === undefined) {
        const tree = renderWebhookPayload(version as WebhookVersion, subject) as PayloadObject;
        body = encodePayload(contentType, tree).body;
        bodies.set(key, body);
      }
      return body;
    };

    const planned: NewDelivery[] = webhooks.map((webhook) => ({
      id: randomUUIDv7(),
      webhookId: webhook.id,
      merchantId: event.merchantId,
      eventId: event.id,
      eventType: event.category,
      subject: logSubject,
      url: webhook.url,
      contentType: webhook.contentType,
      version: webhook.version,
      retryOnError: webhook.retryOnError,
      body: render(webhook.version, webhook.contentType),
      position,
    }));
    const ids = await this.deliveries.createForEvent(planned);
    const enabled = new Set(webhooks.filter((webhook) => webhook.enabled).map((webhook) => webhook.id));
    // A disabled webhook's deliveries are recorded but not sent: each gets a `skipped` entry, to recover later. The
    // entry's id and time are its delivery's, so a fan-out of the same event again writes it once.
    const skippedAt = deliveryCreatedAt(event.id, Date.now());

    const started = planned
      .filter((delivery) => ids.has(delivery.webhookId))
      .map((delivery) => {
        const deliveryId = ids.get(delivery.webhookId)!;
        const snapshot: DeliverySnapshot = {
          webhookId: delivery.webhookId,
          eventId: delivery.eventId,
          eventType: delivery.eventType,
          subject: delivery.subject,
          contentType: delivery.contentType,
          version: delivery.version,
          body: delivery.body,
          occurredAt: event.occurredAt,
          position,
        };
        if (!enabled.has(delivery.webhookId)) {
          this.metrics.scheduled.inc({ decision: 'skipped' });
          const entry = { id: deliveryId, deliveryId, attempt: 1, url: delivery.url, createdAt: skippedAt };
          return this.log.write(notAttemptedRecord('skipped', entry, snapshot));
        }
        const message: DeliveryMessage = { v: 1, deliveryId, snapshot };
        // In the fan-out's span (with tracing on): each attempt is its child, and a repeat carries it on.
        const origin = redelivered ? 'redelivered' : 'fresh';
        return this.firstAttempts(async () => {
          if (this.stopping) await this.publisher.publish(message, 1, { to: 'deliveries' });
          else await this.attempts.attempt({ message, attempt: 1, origin });
        });
      });
    // Every attempt settles before the event is given back for a failed one: its redelivery must not find an attempt
    // of this fan-out still running (not logged yet) and make it a second time.
    const settled = await Promise.allSettled(started);
    const failed = settled.find((outcome) => outcome.status === 'rejected');
    if (failed) throw failed.reason;
    this.metrics.fannedOut.inc(started.length);
    return started.length;
  }
}
