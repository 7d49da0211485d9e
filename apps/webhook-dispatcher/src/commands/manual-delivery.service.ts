import { Injectable, Logger } from '@nestjs/common';
import { randomUUIDv7 } from 'node:crypto';
import {
  deliverySubjectOf,
  encodePayload,
  MAX_ATTEMPTS_PER_DELIVERY,
  renderWebhookPayload,
  type PayloadObject,
  type WebhookVersion,
} from '#domain';
import type { DeliverySnapshot, DispatcherCommand } from '#messaging';
import { DeliveryPublisher } from '../delivery/delivery.publisher.js';
import { DeliveryRepository } from '../delivery/delivery.repository.js';
import { WebhookRepository } from '../webhook/webhook.repository.js';
import { sampleSubject } from './sample-event.js';

/**
 * The merchant backend's manual attempts, each exactly one (never repeated): a test delivery of a sample event, and a
 * resend of a logged delivery. The dispatcher creates the test's delivery and numbers every manual attempt itself;
 * webhook-config only asks (a dispatcher command).
 */
@Injectable()
export class ManualDeliveryService {
  private readonly logger = new Logger(ManualDeliveryService.name);

  constructor(
    private readonly webhooks: WebhookRepository,
    private readonly deliveries: DeliveryRepository,
    private readonly publisher: DeliveryPublisher,
  ) {}

  /**
   * A sample event of a kind the webhook receives, rendered for its version and content type as it is now, recorded
   * as delivery `deliveryId` and attempted once. A command that comes again finds its delivery recorded: whether its
   * attempt was queued then is not known here, so a stand-in makes it after the guard delay unless it is logged by
   * then.
   */
  async test(command: DispatcherCommand): Promise<void> {
    const { deliveryId } = command;
    // Read now, not from the cache: a merchant who changes the version and sends a test at once expects the new one.
    const webhook = await this.webhooks.findById(command.webhookId);
    if (!webhook || webhook.merchantId !== command.merchantId) {
      this.logger.warn({
        msg: `test delivery ${deliveryId}: webhook ${command.webhookId} no longer exists; dropped`,
        ...fieldsOf(command),
      });
      return;
    }
    // The kind asked for (the Events page's "Send this example"), while the webhook still selects it; else its first.
    const asked = command.eventType;
    const kinds = asked !== undefined && webhook.events.includes(asked) ? [asked] : webhook.events;
    const subject = sampleSubject(kinds, webhook.integrationId);
    const tree = renderWebhookPayload(webhook.version as WebhookVersion, subject) as PayloadObject;
    const snapshot: DeliverySnapshot = {
      webhookId: webhook.id,
      eventId: randomUUIDv7(),
      eventType: subject.type,
      subject: deliverySubjectOf(subject),
      contentType: webhook.contentType,
      version: webhook.version,
      body: encodePayload(webhook.contentType, tree).body,
    };
    const created = await this.deliveries.createTest({
      ...snapshot,
      id: deliveryId,
      merchantId: webhook.merchantId,
      url: webhook.url,
      retryOnError: false,
    });
    if (created) await this.publisher.publish({ v: 1, deliveryId, manual: true, snapshot }, 1, { to: 'deliveries' });
    // Without a snapshot: the attempt sends the body recorded the first time.
    else await this.publisher.publish({ v: 1, deliveryId, manual: true }, 1, { to: 'guard' });
  }

  /** The delivery once more, as its next manual attempt, unless it was attempted MAX_ATTEMPTS_PER_DELIVERY times. */
  async resend(command: DispatcherCommand): Promise<void> {
    const { deliveryId } = command;
    const taken = await this.deliveries.takeManualAttempt(
      deliveryId,
      command.webhookId,
      MAX_ATTEMPTS_PER_DELIVERY,
      (attempt) => this.publisher.publish({ v: 1, deliveryId, manual: true }, attempt, { to: 'deliveries' }),
    );
    if ('gone' in taken) {
      this.logger.warn({
        msg: `resend of delivery ${deliveryId}: no such delivery of webhook ${command.webhookId}; dropped`,
        ...fieldsOf(command),
      });
    } else if ('refused' in taken) {
      this.logger.warn({
        msg:
          `resend of delivery ${deliveryId} refused: attempted ${taken.refused} times already, ` +
          `at most ${MAX_ATTEMPTS_PER_DELIVERY} are made`,
        ...fieldsOf(command),
      });
    }
  }
}

const fieldsOf = (command: DispatcherCommand) => ({
  deliveryId: command.deliveryId,
  webhookId: command.webhookId,
  merchantId: command.merchantId,
});
