import { randomUUIDv7 } from 'node:crypto';
import {
  EVENT_KINDS,
  FIRST_TRANSACTION_FIELDS,
  TRANSACTION_FIELDS,
  PAYMENT_METHOD_MAX_LENGTH,
  PLATFORM_EVENT_TYPES,
  PAYMENT_METHOD_PATTERN,
  WEBHOOK_CONTENT_TYPES,
  WEBHOOK_DISABLED_REASONS,
  WEBHOOK_STATES,
  type EventKind,
  type TransactionField,
  type TransactionFieldType,
  type TransactionRecord,
  type WebhookSubject,
} from '#domain';
import type { Options } from 'amqplib';
import type { JSONSchema } from 'json-schema-to-ts';
import {
  headersContract,
  messageContract,
  partContract,
  VERSION_1,
  type MessageOf,
  type MessageRead,
} from './message.contract.js';
import { cliRoutingKey, EXCHANGES } from './topology.js';
import type { AmqpClient } from './amqp.client.js';

/*
 * Every message that crosses RabbitMQ, declared once each: a JSON Schema from which its type and its validator
 * come. Publishers stamp `v`; consumers read every message through its contract and park what does not pass.
 */

/** Kinds of subject an event is about; also the webhook `events` setting. Defined once, in `#domain`'s event-kinds.ts. */
export const EVENT_CATEGORIES = EVENT_KINDS;
export type EventCategory = EventKind;

/** The event types on `payments.events` (the routing key is the type); the category is the part before the dot. */
export { PLATFORM_EVENT_TYPES, type PlatformEventType } from '#domain';

/** Ids that the dispatcher stores in uuid columns or looks up by: anything else would fail there, again and again. */
const uuid = {
  type: 'string',
  pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$',
} as const;
const text = { type: 'string' } as const;
const nullableText = { type: ['string', 'null'] } as const;
/** An instant in ISO 8601 with a zone (what JSON.stringify makes of a Date): no server's time zone decides it. */
const INSTANT = {
  type: 'string',
  pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?(Z|[+-]\\d{2}:\\d{2})$',
} as const;
const nullableUuid = { type: ['string', 'null'], pattern: uuid.pattern } as const;
/** Minor units: an integer the renderers can print as is. */
const AMOUNT = { type: 'integer', minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER } as const;
/** An event's place in its subject's history (the outbox's seq: a bigint, in practice far below 2^53). */
const POSITION = { type: 'integer', minimum: 1 } as const;

/**
 * An event as published on `payments.events` (owner: transaction-api, written to its outbox in the same database
 * transaction as the change it describes; and webhook-config for the operational events about webhooks, category
 * `webhook`, through its own outbox; consumer: the dispatcher's fan-out).
 */
export const platformEvents = messageContract('platform event', {
  type: 'object',
  properties: {
    v: VERSION_1,
    id: uuid,
    type: { enum: PLATFORM_EVENT_TYPES },
    category: { enum: EVENT_CATEGORIES },
    merchantId: uuid,
    // null for payouts, for payments recorded without an integration, and for events about a webhook linked to none.
    integrationId: { type: ['string', 'null'], pattern: uuid.pattern },
    occurredAt: INSTANT,
    // Id of the subject (transaction uuid, subscription id, payout id, webhook id); events of one subject keep their order.
    subjectId: { type: 'string', minLength: 1 },
    // The event's place in its subject's history: a later event of the subject has a higher one (the outbox's seq,
    // set by the relay when it publishes). Missing on events published before it existed: unknown, so the event
    // neither supersedes another's repeats nor has its own superseded (docs/webhook-dispatcher.md, Superseded repeats).
    position: POSITION,
    // The subject's record as libs/domain's renderers take it (TransactionRecord, SubscriptionRecord, PayoutRecord,
    // WebhookRecord),
    // dates as ISO strings; the renderers check it.
    data: { type: 'object' },
  },
  required: ['v', 'id', 'type', 'category', 'merchantId', 'integrationId', 'occurredAt', 'subjectId', 'data'],
  additionalProperties: false,
});
export type PlatformEvent = MessageOf<typeof platformEvents>;

/** How an event's record spells each type of transaction field (`#domain`'s transaction-fields.ts). */
const RECORD_VALUES: { readonly [T in TransactionFieldType]: (field: TransactionField) => JSONSchema } = {
  uuid: (field) => (field.nullable ? nullableUuid : uuid),
  text: (field) => (field.nullable ? nullableText : text),
  enum: (field) => ({ enum: field.values }),
  slug: () => ({
    type: 'string',
    pattern: PAYMENT_METHOD_PATTERN.source,
    maxLength: PAYMENT_METHOD_MAX_LENGTH,
  }),
  amount: () => AMOUNT,
  currency: () => text,
  instant: () => INSTANT,
  // The resolved `3dsecure` object (never a cryptogram or a 3-D Secure id: the schema drops any other key).
  threeDSecure: () => ({
    anyOf: [
      { type: 'null' },
      {
        type: 'object',
        properties: {
          eci: text,
          source: { enum: ['3ds', 'token'] },
          version: nullableText,
          flow: { enum: ['frictionless', 'challenge', null] },
        },
        required: ['eci', 'source', 'version', 'flow'],
        additionalProperties: false,
      },
    ],
  }),
};

/**
 * A transaction event's `data`: libs/domain's TransactionRecord, dates as ISO strings, one property per field of
 * the transaction. A field that came after the first version is optional: events written before it lack it.
 */
const transactionRecords = partContract<JSONSchema & { type: 'object' }, TransactionRecord & RecordDates>(
  'transaction record',
  {
    type: 'object',
    properties: Object.fromEntries(TRANSACTION_FIELDS.map((field) => [field.record, RECORD_VALUES[field.type](field)])),
    required: FIRST_TRANSACTION_FIELDS.map((field) => field.record),
    additionalProperties: false,
  },
);

/** The record's instants as events carry them. */
type RecordDates = { createdAt: string; updatedAt: string };

/** A subscription event's `data`: libs/domain's SubscriptionRecord. */
const subscriptionRecords = partContract('subscription record', {
  type: 'object',
  properties: {
    id: { type: 'string', minLength: 1 },
    status: text,
    event: nullableText,
    referenceId: nullableText,
    amount: AMOUNT,
    currency: text,
    interval: text,
    integrationId: nullableUuid,
    createdAt: INSTANT,
    updatedAt: INSTANT,
  },
  required: [
    'id',
    'status',
    'event',
    'referenceId',
    'amount',
    'currency',
    'interval',
    'integrationId',
    'createdAt',
    'updatedAt',
  ],
  additionalProperties: false,
});

/** A payout event's `data`: libs/domain's PayoutRecord. */
const payoutRecords = partContract('payout record', {
  type: 'object',
  properties: {
    id: { type: 'string', minLength: 1 },
    status: text,
    amount: AMOUNT,
    currency: text,
    createdAt: INSTANT,
  },
  required: ['id', 'status', 'amount', 'currency', 'createdAt'],
  additionalProperties: false,
});

/** An operational event's `data` (`webhook.*`): libs/domain's WebhookRecord. */
const webhookRecords = partContract('webhook record', {
  type: 'object',
  properties: {
    id: uuid,
    name: text,
    url: text,
    state: { enum: WEBHOOK_STATES },
    disabledReason: { enum: [...WEBHOOK_DISABLED_REASONS, null] },
    failingSince: { anyOf: [{ type: 'null' }, INSTANT] },
    lastSuccessAt: { anyOf: [{ type: 'null' }, INSTANT] },
    count: { type: ['integer', 'null'], minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
    occurredAt: INSTANT,
  },
  required: ['id', 'name', 'url', 'state', 'disabledReason', 'failingSince', 'lastSuccessAt', 'count', 'occurredAt'],
  additionalProperties: false,
});

/**
 * The subject of a platform event, its `data` checked against the record schema of its category: what the renderers
 * take. A consumer parks an event whose data does not pass (it would fail the same way at every attempt).
 */
export function readEventSubject(event: PlatformEvent): MessageRead<WebhookSubject> {
  switch (event.category) {
    case 'transaction': {
      const read = transactionRecords(event.data);
      return read.ok ? { ok: true, value: { type: 'transaction', transaction: read.value } } : read;
    }
    case 'subscription': {
      const read = subscriptionRecords(event.data);
      return read.ok ? { ok: true, value: { type: 'subscription', subscription: read.value } } : read;
    }
    case 'payout': {
      const read = payoutRecords(event.data);
      return read.ok ? { ok: true, value: { type: 'payout', payout: read.value } } : read;
    }
    case 'webhook': {
      const read = webhookRecords(event.data);
      return read.ok ? { ok: true, value: { type: 'webhook', webhook: read.value } } : read;
    }
  }
}

/** What routes a platform event: its type (the routing key) and whose it is (the `payments listen` sessions' key). */
export type PlatformEventRoute = Pick<PlatformEvent, 'type' | 'category' | 'merchantId' | 'integrationId'>;

/**
 * Publishes a platform event on `payments.events` (`body`: the event's JSON, exactly as consumers read it) under its
 * type, with the `payments listen` sessions' routing key of its merchant, integration and kind as a BCC routing key
 * (cliRoutingKey; BCC: consumers never see it). Resolves once the broker has confirmed it. The two publishers,
 * transaction-api's outbox relay and webhook-config's operational-event relay, publish through this alone.
 */
export async function publishPlatformEvent(
  amqp: AmqpClient,
  route: PlatformEventRoute,
  body: Buffer,
  options: Omit<Options.Publish, 'CC' | 'BCC'> = {},
): Promise<void> {
  await amqp.publish(EXCHANGES.events, route.type, body, {
    ...options,
    ...(route.integrationId === null
      ? {}
      : { BCC: [cliRoutingKey(route.merchantId, route.integrationId, route.category)] }),
  });
}

/** Header carrying the attempt number of a delivery message (1 = first attempt). */
export const ATTEMPT_HEADER = 'x-attempt';

/**
 * Header of a delivery of a rate-limited webhook: the start time (Unix ms) it booked in the webhook's rate limit (the
 * dispatcher's schedule released it, or it moved to the slow lane), so that it waits for that time rather than booking
 * again.
 */
export const RATE_AT_HEADER = 'x-rate-at';

/**
 * Header marking a stand-in for an attempt that was still running when its message was acked: attempt it only if
 * that attempt was never logged.
 */
export const GUARD_HEADER = 'x-guard';

/**
 * W3C Trace Context of the trace a message belongs to (when tracing is on): on an event, the platform API request
 * that wrote it; on a delivery message, its fan-out (kept on every repeat). A hint only: never validated, a bad one
 * starts no trace.
 */
export const TRACEPARENT_HEADER = 'traceparent';

/**
 * Asks a dispatcher to make attempt `x-attempt` of one delivery (a webhook_delivery row), on `webhooks.deliveries`
 * and through the slow lane, retry, guard and parked queues (owner: the dispatcher — its fan-out, and its commands for
 * tests and resends; consumer: the dispatcher's delivery). Without a snapshot (resends) the dispatcher reads
 * the row.
 */
export const deliveryMessages = messageContract('delivery message', {
  type: 'object',
  properties: {
    v: VERSION_1,
    deliveryId: uuid,
    // A manual resend or test: exactly one attempt, never scheduled for repeats.
    manual: { type: 'boolean' },
    // The recover that sent this manual attempt (delivery.webhook_recover): not made once it is cancelled.
    recoverId: uuid,
    // What an attempt needs of the delivery, so that the hot path reads no row.
    snapshot: {
      type: 'object',
      properties: {
        webhookId: uuid,
        eventId: uuid,
        eventType: { enum: EVENT_CATEGORIES },
        subject: {
          type: 'object',
          properties: { psp: text, type: text, uuid: text, referenceId: { type: ['string', 'null'] } },
          required: ['uuid'],
          additionalProperties: false,
        },
        contentType: { enum: WEBHOOK_CONTENT_TYPES },
        // The webhook payload version of the body.
        version: text,
        // The exact body, rendered once at fan-out; every attempt sends these bytes.
        body: text,
        // When the event happened (for the event-to-delivery latency metric).
        occurredAt: INSTANT,
        // The event's position (see platformEvents) when its repeats may be superseded by a later event of the same
        // subject (transactions, subscriptions); missing otherwise, and on deliveries queued before it existed.
        position: POSITION,
      },
      required: ['webhookId', 'eventId', 'eventType', 'subject', 'contentType', 'version', 'body'],
      additionalProperties: false,
    },
  },
  required: ['v', 'deliveryId'],
  additionalProperties: false,
});
export type DeliveryMessage = MessageOf<typeof deliveryMessages>;
export type DeliverySnapshot = NonNullable<DeliveryMessage['snapshot']>;

const deliveryHeaders = headersContract({
  type: 'object',
  properties: {
    // Missing on a first attempt published without it. At most what webhook_log.attempt (integer) holds.
    [ATTEMPT_HEADER]: { type: 'integer', minimum: 1, maximum: 2_147_483_647, default: 1 },
    [GUARD_HEADER]: { const: 1 },
    [RATE_AT_HEADER]: { type: 'integer', minimum: 0 },
  },
});

/** A delivery message as a consumer takes it: the message, the attempt to make, and whether it is a stand-in. */
export interface DeliveryRead {
  message: DeliveryMessage;
  attempt: number;
  guard: boolean;
  /** The start time (Unix ms) booked for it in its webhook's rate limit, if it was booked before (`x-rate-at`). */
  rateAt?: number;
}

/** Reads a delivery message: its body and its `x-attempt` and `x-guard` headers. */
export function readDelivery(content: Buffer, headers: Record<string, unknown> = {}): MessageRead<DeliveryRead> {
  const body = deliveryMessages.read(content);
  if (!body.ok) return body;
  const read = deliveryHeaders(headers);
  if (!read.ok) return read;
  return {
    ok: true,
    value: {
      message: body.value,
      attempt: read.value[ATTEMPT_HEADER],
      guard: read.value[GUARD_HEADER] === 1,
      rateAt: read.value[RATE_AT_HEADER],
    },
  };
}

/**
 * Published on `webhooks.config` after a webhook is created, changed, rotated or deleted (owner: webhook-config;
 * consumers: every dispatcher process, which forgets the webhook in its cache).
 */
export const webhookChanges = messageContract('webhook change', {
  type: 'object',
  properties: {
    v: VERSION_1,
    type: { const: 'webhook.changed' },
    webhookId: uuid,
    merchantId: uuid,
  },
  required: ['v', 'type', 'webhookId', 'merchantId'],
  additionalProperties: false,
});
export type WebhookChangedMessage = MessageOf<typeof webhookChanges>;

export async function publishWebhookChanged(
  amqp: AmqpClient,
  message: Omit<WebhookChangedMessage, 'v' | 'type'>,
): Promise<void> {
  const body: WebhookChangedMessage = { v: 1, type: 'webhook.changed', ...message };
  await amqp.publish(EXCHANGES.config, '', Buffer.from(JSON.stringify(body)), { messageId: randomUUIDv7() });
}

/** What webhook-config asks the dispatcher to do: deliver a sample event now, or a logged delivery once more. */
export const DISPATCHER_COMMAND_TYPES = ['webhook.test', 'delivery.resend'] as const;
export type DispatcherCommandType = (typeof DISPATCHER_COMMAND_TYPES)[number];

/**
 * A request from the merchant backend for one manual attempt, on `webhooks.commands` (routing key = type) →
 * `dispatcher.commands` (owner: webhook-config; consumer: the dispatcher's commands, which creates and numbers the
 * attempt: webhook-config writes none of the dispatcher's tables).
 *
 * - `webhook.test`: deliver a sample event of a kind the webhook receives, as a new delivery with id `deliveryId`
 *   (a v7 uuid webhook-config chose and answered the merchant with). The dispatcher creates that delivery once, however
 *   often the command arrives. `eventType` (optional; the event catalog's "Send this example") asks for the sample of
 *   that kind, which webhook-config checked the webhook selects; without it, the first kind the webhook selects.
 * - `delivery.resend`: deliver delivery `deliveryId` (of a log entry of the webhook) once more.
 *
 * `requestedAt`: when the merchant asked (ISO 8601).
 */
export const dispatcherCommands = messageContract('dispatcher command', {
  type: 'object',
  properties: {
    v: VERSION_1,
    type: { enum: DISPATCHER_COMMAND_TYPES },
    deliveryId: uuid,
    webhookId: uuid,
    merchantId: uuid,
    requestedAt: text,
    eventType: { enum: EVENT_CATEGORIES },
  },
  required: ['v', 'type', 'deliveryId', 'webhookId', 'merchantId', 'requestedAt'],
  additionalProperties: false,
});
export type DispatcherCommand = MessageOf<typeof dispatcherCommands>;

/** Publishes a command for the dispatcher; resolves once the broker has confirmed it. */
export async function publishDispatcherCommand(
  amqp: AmqpClient,
  command: Omit<DispatcherCommand, 'v' | 'requestedAt'>,
): Promise<void> {
  const body: DispatcherCommand = { v: 1, ...command, requestedAt: new Date().toISOString() };
  await amqp.publish(EXCHANGES.commands, command.type, Buffer.from(JSON.stringify(body)), {
    messageId: randomUUIDv7(),
  });
}

/** What the dispatcher reports about a webhook whose attempts keep failing, or whose URL is gone. */
export const WEBHOOK_HEALTH_REPORTS = ['webhook.failing', 'webhook.failing-too-long', 'webhook.gone'] as const;

/**
 * A failing webhook, on `webhooks.health` (routing key = type) → `config.webhook-health` (owner: the dispatcher, which
 * counts the attempts; consumer: webhook-config, which owns the webhook and its merchant's notices).
 *
 * - `webhook.failing`: every attempt since `failingSince` failed, for an hour now: notify the merchant.
 * - `webhook.failing-too-long`: for WEBHOOK_DISABLE_AFTER, with at least 10 attempts (`failures`): disable it (reason
 *   `failing`) and notify the merchant.
 * - `webhook.gone`: an attempt was answered `410 Gone` at `failingSince` (the time of that attempt): disable it at once
 *   (reason `gone`) and notify the merchant.
 *
 * The episode (`failingSince`) starts at the first failed attempt after the last success, or at the webhook's latest
 * enabling by its merchant if that is later. Sent once per episode as far as the dispatcher knows; the consumer acts
 * once per episode however often it arrives, and not at all on an episode the webhook has left since (a success, or
 * an enabling after it began).
 */
export const webhookHealthReports = messageContract('webhook health report', {
  type: 'object',
  properties: {
    v: VERSION_1,
    type: { enum: WEBHOOK_HEALTH_REPORTS },
    webhookId: uuid,
    merchantId: uuid,
    failingSince: text,
    failures: { type: 'integer', minimum: 1 },
  },
  required: ['v', 'type', 'webhookId', 'merchantId', 'failingSince', 'failures'],
  additionalProperties: false,
});
export type WebhookHealthReport = MessageOf<typeof webhookHealthReports>;

/** Publishes a health report for webhook-config; resolves once the broker has confirmed it. */
export async function publishWebhookHealthReport(
  amqp: AmqpClient,
  report: Omit<WebhookHealthReport, 'v'>,
): Promise<void> {
  const body: WebhookHealthReport = { v: 1, ...report };
  await amqp.publish(EXCHANGES.health, report.type, Buffer.from(JSON.stringify(body)), {
    messageId: randomUUIDv7(),
  });
}

/**
 * A recover, on `webhooks.commands` → `dispatcher.commands` (owner: webhook-config; consumer: the dispatcher's
 * recover jobs, which own its state):
 * - `webhook.recover`: start recover `recoverId` (a v7 uuid webhook-config chose): deliver once more every event
 *   since `since` (ISO 8601) whose latest outcome for the webhook is failed or skipped, each as a manual attempt of its
 *   delivery (the same webhook-id), within the webhook's maxPerSecond. Started once however often it arrives; not
 *   started while another recover of the webhook runs.
 * - `webhook.recover-cancel`: stop the webhook's running recover (`recoverId`, when given, only that one).
 * `requestedAt`: when the merchant asked.
 */
export const RECOVER_COMMAND = 'webhook.recover';
export const RECOVER_CANCEL_COMMAND = 'webhook.recover-cancel';
export const recoverCommands = messageContract('recover command', {
  type: 'object',
  properties: {
    v: VERSION_1,
    type: { enum: [RECOVER_COMMAND, RECOVER_CANCEL_COMMAND] },
    recoverId: uuid,
    webhookId: uuid,
    merchantId: uuid,
    // How many deliveries a start sends, as webhook-config counted them for its answer (the dispatcher counts them
    // itself when missing).
    total: { type: 'integer', minimum: 0, maximum: 2_147_483_647 },
    // Required to start one (the consumer parks a start without it).
    since: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?(Z|[+-]\\d{2}:\\d{2})$' },
    requestedAt: text,
  },
  required: ['v', 'type', 'recoverId', 'webhookId', 'merchantId', 'requestedAt'],
  additionalProperties: false,
});
export type RecoverCommand = MessageOf<typeof recoverCommands>;

/** Publishes a recover command; resolves once the broker has confirmed it. */
export async function publishRecoverCommand(
  amqp: AmqpClient,
  command: Omit<RecoverCommand, 'v' | 'requestedAt'>,
): Promise<void> {
  const body: RecoverCommand = { v: 1, ...command, requestedAt: new Date().toISOString() };
  await amqp.publish(EXCHANGES.commands, command.type, Buffer.from(JSON.stringify(body)), {
    messageId: randomUUIDv7(),
  });
}

const count = { type: 'integer', minimum: 0 } as const;

/**
 * One transaction-api process's rate-limit counts since its previous message (sent every 100 ms while it counted
 * anything), on `transaction-api.rate` (owner and consumers: every transaction-api process, each on an exclusive
 * queue; a process skips its own). `counts`: per limited id — `key:<integrationId>` or `ip:<client address>`, never
 * an API key — `[accepted, attempted]`.
 */
export const rateCounts = messageContract('rate-limit counts', {
  type: 'object',
  properties: {
    v: VERSION_1,
    process: { type: 'string', minLength: 1 },
    counts: { type: 'object', additionalProperties: { type: 'array', items: count, minItems: 2, maxItems: 2 } },
  },
  required: ['v', 'process', 'counts'],
  additionalProperties: false,
});
export type RateCountsMessage = MessageOf<typeof rateCounts>;

/** Publishes transiently: the counts are out of date in 100 ms anyway. */
export async function publishRateCounts(amqp: AmqpClient, message: Omit<RateCountsMessage, 'v'>): Promise<void> {
  const body: RateCountsMessage = { v: 1, ...message };
  await amqp.publish(EXCHANGES.rate, '', Buffer.from(JSON.stringify(body)), { persistent: false });
}
