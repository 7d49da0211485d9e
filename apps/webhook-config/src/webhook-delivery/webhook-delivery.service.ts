import { Injectable } from '@nestjs/common';
import { randomUUIDv7 } from 'node:crypto';
import { MAX_ATTEMPTS_PER_DELIVERY } from '#domain';
import { parseInstant } from '#platform';
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
   */
  async sendTest(merchantId: string, webhookId: string): Promise<{ deliveryId: string }> {
    await this.lookup.require(merchantId, webhookId);
    const deliveryId = randomUUIDv7();
    await this.commands.send({ type: 'webhook.test', deliveryId, webhookId, merchantId });
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

  /**
   * Every event since `since` whose latest outcome for this webhook is failed or skipped, sent again (a new attempt,
   * the same webhook-id) within the webhook's maxPerSecond: counted here for the answer, sent by the dispatcher. A
   * disabled webhook is refused: it would receive them while nothing else reaches it.
   */
  async recover(merchantId: string, webhookId: string, since: string): Promise<{ count: number }> {
    const webhook = await this.lookup.require(merchantId, webhookId);
    const from = recoverSince(since, this.config.logRetentionMs);
    if (!webhook.enabled) {
      throw new WebhookDeliveryException(
        'This webhook is disabled. Enable it first; then recover what it missed.',
        WebhookDeliveryExceptionCode.WEBHOOK_DISABLED,
      );
    }
    const count = await this.deliveries.countRecoverable(webhookId, from);
    if (count > 0) {
      await this.commands.recover({ requestId: randomUUIDv7(), webhookId, merchantId, since: from.toISOString() });
    }
    return { count };
  }
}

const SINCE_FORMAT = 'must be a date and time with a time zone (ISO 8601, e.g. 2026-11-20T08:00:00Z)';

/** A recover's `since`, checked: a time in the past, no further back than the log is kept. */
function recoverSince(since: string, retentionMs: number): Date {
  // With a zone only (CONTRACT §3): a zone-less time would mean whatever the server's zone makes of it.
  const time = parseInstant(since) ?? new Date(Number.NaN);
  const refuse = (message: string) =>
    new WebhookDeliveryException(`since ${message}.`, WebhookDeliveryExceptionCode.INVALID_SINCE, [
      { field: 'since', message },
    ]);
  if (Number.isNaN(time.getTime())) throw refuse(SINCE_FORMAT);
  if (time.getTime() > Date.now()) throw refuse('must not be in the future');
  if (time.getTime() < Date.now() - retentionMs) {
    throw refuse(`must be within the last ${retentionText(retentionMs)}: older deliveries are no longer kept`);
  }
  return time;
}

/** A retention as merchants read it: whole days as days, anything else in hours. */
export function retentionText(ms: number): string {
  const days = ms / 86_400_000;
  if (Number.isInteger(days)) return days === 1 ? '1 day' : `${days} days`;
  const hours = Math.round(ms / 3_600_000);
  return hours === 1 ? '1 hour' : `${hours} hours`;
}
