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
import { AmqpClient, publishDelivery, type DeliverySnapshot, type PlatformEvent } from '#messaging';
import { activeTraceparent } from '#platform';
import { DeliveryLogWriter, notAttemptedRecord } from '../delivery/delivery-log.writer.js';
import { supersedingPosition } from '../delivery/superseded.repository.js';
import { DispatcherMetrics } from '../metrics/dispatcher.metrics.js';
import { WebhookCache } from '../webhook/webhook.cache.js';
import { deliveryCreatedAt, DeliveryRepository, type NewDelivery } from '../delivery/delivery.repository.js';
import { aboutItselfWhileDisabled, webhookMatches } from './webhook-matcher.js';

/**
 * One event in, one delivery per matching webhook out: renders each distinct (version, content type) body
 * once, records the deliveries, publishes one delivery message per webhook and returns only once the
 * broker has confirmed every publish (the caller acks the event after that).
 */
@Injectable()
export class FanOutService {
  constructor(
    private readonly cache: WebhookCache,
    private readonly deliveries: DeliveryRepository,
    private readonly amqp: AmqpClient,
    private readonly metrics: DispatcherMetrics,
    private readonly log: DeliveryLogWriter,
  ) {}

  /** `subject`: the event's data, checked (readEventSubject). */
  async fanOut(event: PlatformEvent, subject: WebhookSubject): Promise<number> {
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
    const traceparent = activeTraceparent(); // the fan-out's span: each attempt is its child
    const enabled = new Set(webhooks.filter((webhook) => webhook.enabled).map((webhook) => webhook.id));
    // A disabled webhook's deliveries are recorded but not sent: each gets a `skipped` entry, to recover later. The
    // entry's id and time are its delivery's, so a fan-out of the same event again writes it once.
    const skippedAt = deliveryCreatedAt(event.id, Date.now());

    const publishes = planned
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
        return publishDelivery(this.amqp, { deliveryId, snapshot }, 1, traceparent);
      });
    await Promise.all(publishes);
    this.metrics.fannedOut.inc(publishes.length);
    return publishes.length;
  }
}
