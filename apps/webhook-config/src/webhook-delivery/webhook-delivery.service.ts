import { Injectable } from '@nestjs/common';
import { randomUUIDv7 } from 'node:crypto';
import {
  encodePayload,
  renderWebhookPayload,
  type PayloadObject,
  type WebhookContentType,
  type WebhookVersion,
} from '#domain';
import { ProblemException } from '#platform';
import { WebhookLogRepository } from '../webhook-log/webhook-log.repository.js';
import { WebhookLookup } from '../webhook/webhook.lookup.js';
import { DeliveryPublisher } from './delivery.publisher.js';
import { logSubjectOf, sampleSubject } from './sample-event.js';
import { WebhookDeliveryRepository } from './webhook-delivery.repository.js';

/**
 * Attempts of one delivery a resend may add up to: far beyond the 11 automatic ones, and a bound on what the log
 * reads to number an entry (its place among its delivery's attempts).
 */
export const MAX_ATTEMPTS_PER_DELIVERY = 50;

/** Test deliveries and resends: manual, single attempts delivered by the dispatcher. */
@Injectable()
export class WebhookDeliveryService {
  constructor(
    private readonly lookup: WebhookLookup,
    private readonly deliveries: WebhookDeliveryRepository,
    private readonly logs: WebhookLogRepository,
    private readonly publisher: DeliveryPublisher,
  ) {}

  /** A sample event of a kind the webhook receives, rendered for its version and content type, delivered once now. */
  async sendTest(merchantId: string, webhookId: string): Promise<{ deliveryId: string }> {
    const webhook = await this.lookup.require(merchantId, webhookId);
    const subject = sampleSubject(webhook.events, webhook.integrationId);
    const tree = renderWebhookPayload(webhook.version as WebhookVersion, subject) as PayloadObject;
    const { body } = encodePayload(webhook.contentType as WebhookContentType, tree);
    const deliveryId = randomUUIDv7();
    await this.deliveries.insert({
      id: deliveryId,
      webhookId,
      merchantId,
      eventId: randomUUIDv7(),
      eventType: subject.type,
      subject: logSubjectOf(subject),
      url: webhook.url,
      contentType: webhook.contentType,
      version: webhook.version,
      retryOnError: false,
      body: Buffer.from(body, 'utf8'),
      manualAttempts: 1,
      lastManualAttempt: 1,
    });
    await this.publisher.deliverNow(deliveryId, 1);
    return { deliveryId };
  }

  /**
   * The event of a log entry, delivered once more (same webhook-id and body). Answers the place the attempt will
   * take in the log (unless a scheduled repeat runs first).
   */
  async resend(merchantId: string, webhookId: string, logId: string): Promise<{ deliveryId: string; attempt: number }> {
    await this.lookup.require(merchantId, webhookId); // 404 unless it is this merchant's webhook
    const log = await this.logs.findOne(webhookId, logId);
    const delivery = log && (await this.deliveries.findOfWebhook(webhookId, log.deliveryId));
    if (!delivery) throw new ProblemException(404, 'There is no log entry with this id.');
    // The dispatcher sends every attempt, resends included, to the webhook's current URL.
    const taken = await this.deliveries.takeManualAttempt(delivery.id, MAX_ATTEMPTS_PER_DELIVERY, (attemptNumber) =>
      this.publisher.deliverNow(delivery.id, attemptNumber),
    );
    if ('gone' in taken) throw new ProblemException(404, 'There is no log entry with this id.');
    if ('refused' in taken) {
      throw new ProblemException(
        409,
        `This event was already sent ${taken.refused} times to this webhook; it is not resent again. Use “Send test” to check your server.`,
        { type: 'urn:problem:resend-limit', title: 'Resend limit reached' },
      );
    }
    return { deliveryId: delivery.id, attempt: taken.place };
  }
}
