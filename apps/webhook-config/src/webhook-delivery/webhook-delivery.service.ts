import { Injectable } from '@nestjs/common';
import { randomUUIDv7 } from 'node:crypto';
import { MAX_ATTEMPTS_PER_DELIVERY, type WebhookEventType } from '#domain';
import { WebhookConfigConfig } from '../config/webhook-config.config.js';
import { WebhookLogRepository } from '../webhook-log/webhook-log.repository.js';
import { WebhookLookup } from '../webhook/webhook.lookup.js';
import { DeliveryCommandPublisher } from './delivery-command.publisher.js';
import { DeliveryRefRepository } from './delivery-ref.repository.js';
import { WebhookDeliveryException, WebhookDeliveryExceptionCode } from './webhook-delivery.exception.js';

/**
 * Test deliveries and resends: manual, single attempts, which the dispatcher creates, numbers and delivers. This
 * side checks the request against what the merchant may see (the webhook, its log) and asks the dispatcher.
 */
@Injectable()
export class WebhookDeliveryService {
  constructor(
    private readonly lookup: WebhookLookup,
    private readonly logs: WebhookLogRepository,
    private readonly deliveries: DeliveryRefRepository,
    private readonly commands: DeliveryCommandPublisher,
    private readonly config: WebhookConfigConfig,
  ) {}

  /**
   * A sample event of a kind the webhook receives, rendered by the dispatcher for the webhook's version and content
   * type, delivered once now. Answers the id the delivery will have (a v7 uuid chosen here, so that the dispatcher
   * creates it once however often the command reaches it); the log shows its outcome.
   *
   * `eventType` (the event catalog's "Send this example"): the sample of that kind, which must be one the webhook
   * selects — a test, like every delivery, only sends what the webhook receives. Without it, the dispatcher takes the
   * first kind the webhook selects.
   */
  async sendTest(merchantId: string, webhookId: string, eventType?: WebhookEventType): Promise<{ deliveryId: string }> {
    const webhook = await this.lookup.require(merchantId, webhookId);
    if (eventType !== undefined && !webhook.events.includes(eventType)) {
      throw new WebhookDeliveryException(
        'This webhook does not receive these events.',
        WebhookDeliveryExceptionCode.EVENT_TYPE_NOT_SELECTED,
        [
          {
            field: 'eventType',
            message: `this webhook does not receive ${eventType} events (it receives ${webhook.events.join(', ')}); choose another webhook or add them to its events`,
          },
        ],
      );
    }
    const deliveryId = randomUUIDv7();
    await this.commands.send({
      type: 'webhook.test',
      deliveryId,
      webhookId,
      merchantId,
      ...(eventType === undefined ? {} : { eventType }),
    });
    return { deliveryId };
  }

  /**
   * The event of a log entry, delivered once more (same webhook-id and body). The limit is checked here from the
   * log, so the merchant hears of it, and again by the dispatcher, which also counts the resends not logged yet.
   * A delivery older than WEBHOOK_LOG_RETENTION is removed (with its day) while its later log entries are still
   * shown: the merchant hears that it cannot be resent rather than a 202 the dispatcher would drop.
   */
  async resend(merchantId: string, webhookId: string, logId: string): Promise<{ deliveryId: string }> {
    await this.lookup.require(merchantId, webhookId); // 404 unless it is this merchant's webhook
    const log = await this.logs.findOne(webhookId, logId);
    if (!log) {
      throw new WebhookDeliveryException(
        'There is no log entry with this id.',
        WebhookDeliveryExceptionCode.LOG_ENTRY_NOT_FOUND,
      );
    }
    if (!(await this.deliveries.isKept(webhookId, log.deliveryId))) {
      throw new WebhookDeliveryException(
        `This event was first sent more than ${retentionText(this.config.logRetentionMs)} ago: its delivery is no ` +
          'longer kept, so it cannot be resent.',
        WebhookDeliveryExceptionCode.DELIVERY_EXPIRED,
      );
    }
    const attempts = await this.logs.countOfDelivery(log.deliveryId);
    if (attempts >= MAX_ATTEMPTS_PER_DELIVERY) {
      throw new WebhookDeliveryException(
        `This event was already sent ${attempts} times to this webhook; it is not resent again. Use “Send test” to check your server.`,
        WebhookDeliveryExceptionCode.RESEND_LIMIT_REACHED,
      );
    }
    await this.commands.send({ type: 'delivery.resend', deliveryId: log.deliveryId, webhookId, merchantId });
    return { deliveryId: log.deliveryId };
  }
}

/** A retention as merchants read it: whole days as days, anything else in hours. */
export function retentionText(ms: number): string {
  const days = ms / 86_400_000;
  if (Number.isInteger(days)) return days === 1 ? '1 day' : `${days} days`;
  const hours = Math.round(ms / 3_600_000);
  return hours === 1 ? '1 hour' : `${hours} hours`;
}
