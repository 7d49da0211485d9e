import { EXCHANGES, ROUTING_KEYS } from './topology.js';
import type { AmqpClient } from './amqp.client.js';

/** Kinds of subject an event is about; also the webhook `events` setting. */
export type EventCategory = 'transaction' | 'subscription' | 'payout';

/**
 * An event as published on `payments.events` (routing key = `type`), written to the outbox in the same
 * database transaction as the change it describes. `data` is the subject's record as libs/domain's
 * renderers take it (TransactionRecord, SubscriptionRecord, PayoutRecord), with dates as ISO strings.
 *
 * Types: transaction.created, transaction.status_changed, subscription.created, subscription.renewed,
 * subscription.payment_failed, subscription.cancelled, subscription.ended, payout.created.
 */
export interface PlatformEvent<TData = Record<string, unknown>> {
  id: string;
  type: string;
  category: EventCategory;
  merchantId: string;
  /** null for payouts and for payments recorded without an integration. */
  integrationId: string | null;
  occurredAt: string;
  /** Id of the subject (transaction uuid, subscription id, payout id); events of one subject keep their order. */
  subjectId: string;
  data: TData;
}

/** Header carrying the attempt number of a delivery message (1 = first attempt). */
export const ATTEMPT_HEADER = 'x-attempt';

/**
 * Header marking a stand-in for an attempt that was still running when its message was acked: attempt it only if
 * that attempt was never logged.
 */
export const GUARD_HEADER = 'x-guard';

/** What an attempt needs of a delivery; carried in the message so the hot path reads no row. */
export interface DeliverySnapshot {
  webhookId: string;
  eventId: string;
  /** The event's category: transaction, subscription or payout. */
  eventType: string;
  subject: { psp?: string; type?: string; uuid: string };
  contentType: string;
  version: string;
  /** The exact body, rendered once at fan-out; every attempt sends these bytes. */
  body: string;
  /** When the event happened (for the event-to-delivery latency metric). */
  occurredAt?: string;
}

/**
 * Asks a dispatcher to make attempt `x-attempt` of one delivery (a webhook_delivery row). Without a
 * snapshot (tests and resends from the merchant backend) the dispatcher reads the row.
 */
export interface DeliveryMessage {
  deliveryId: string;
  /** A manual resend or test: exactly one attempt, never scheduled for repeats. */
  manual?: boolean;
  snapshot?: DeliverySnapshot;
}

export async function publishDelivery(amqp: AmqpClient, message: DeliveryMessage, attempt: number): Promise<void> {
  await amqp.publish(EXCHANGES.deliveries, ROUTING_KEYS.deliver, Buffer.from(JSON.stringify(message)), {
    messageId: message.deliveryId,
    headers: { [ATTEMPT_HEADER]: attempt },
  });
}

/** Published on `webhooks.config` after a webhook is created, changed, rotated or deleted. */
export interface WebhookChangedMessage {
  type: 'webhook.changed';
  webhookId: string;
  merchantId: string;
}

export async function publishWebhookChanged(
  amqp: AmqpClient,
  message: Omit<WebhookChangedMessage, 'type'>,
): Promise<void> {
  const body: WebhookChangedMessage = { type: 'webhook.changed', ...message };
  await amqp.publish(EXCHANGES.config, '', Buffer.from(JSON.stringify(body)));
}
