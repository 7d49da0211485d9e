/**
 * Webhook payload versions (`2025-01-15`, `2026-08-20` with `3dsecure`) and the registry of payload renderers, whose
 * transaction objects are derived from the fields' `since` (`transaction-fields.ts`).
 *
 * Adding a version: append it to {@link WEBHOOK_VERSIONS}; its transaction object has the fields dated at or before
 * it (a new field comes with its own `since`). Never remove or reorder a version, nor edit a field's `since` —
 * receivers pinned to an old version must keep receiving exactly the same trees.
 */
import { EVENT_KINDS, isEventKind, type EventKind } from './event-kinds.js';
import { newest, perVersion } from './newest.js';
import {
  toIsoInstant,
  type PayoutRecord,
  type SubscriptionRecord,
  type TransactionRecord,
  type WebhookDisabledReason,
  type WebhookRecord,
  type WebhookState,
} from './record.shapes.js';
import {
  TRANSACTION_FIELDS,
  transactionFieldsSince,
  type TransactionFieldRow,
  type TransactionFieldsSince,
  type TransactionObjectOf,
} from './transaction-fields.js';
import { transactionRenderer } from './transaction.renderer.js';

/** Every webhook version, oldest first. */
export const WEBHOOK_VERSIONS = ['2025-01-15', '2026-08-20'] as const;

/** A webhook version. */
export type WebhookVersion = (typeof WEBHOOK_VERSIONS)[number];

/** The newest webhook version (the last of {@link WEBHOOK_VERSIONS}), the default of a new webhook. */
export const LATEST_WEBHOOK_VERSION = newest(WEBHOOK_VERSIONS);

/** The event types a webhook can select (its `events` setting): every kind of event (`event-kinds.ts`). */
export const WEBHOOK_EVENT_TYPES = EVENT_KINDS;

/** A webhook event type: a kind of event. */
export type WebhookEventType = EventKind;

const webhookVersions: ReadonlySet<string> = new Set(WEBHOOK_VERSIONS);

/** Whether `version` is a webhook version (exact match). */
export function isWebhookVersion(version: unknown): version is WebhookVersion {
  return typeof version === 'string' && webhookVersions.has(version);
}

/** Whether `type` is a webhook event type (exact match). */
export function isWebhookEventType(type: unknown): type is WebhookEventType {
  return isEventKind(type);
}

/** What a webhook reports: one transaction, subscription, payout, or one of the merchant's webhooks. */
export type WebhookSubject =
  | { type: 'transaction'; transaction: TransactionRecord }
  | { type: 'subscription'; subscription: SubscriptionRecord }
  | { type: 'payout'; payout: PayoutRecord }
  | { type: 'webhook'; webhook: WebhookRecord };

/** A subject of each kind of event, and of no other: adding a kind to `event-kinds.ts` fails here until it has one. */
type SameSet<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export const WEBHOOK_SUBJECTS_COVER_EVENT_KINDS: SameSet<WebhookSubject['type'], EventKind> = true;

/** The public subscription object of a webhook. */
export type PublicSubscription = {
  id: string;
  status: string;
  event: string | null;
  referenceId: string | null;
  amount: number;
  currency: string;
  interval: string;
  integrationId: string | null;
  createdAt: string;
  updatedAt: string;
};

/** The public payout object of a webhook. */
export type PublicPayout = {
  id: string;
  status: string;
  amount: number;
  currency: string;
  createdAt: string;
};

/** The public webhook object of an operational event (CONTRACT §5). */
export type PublicWebhook = {
  id: string;
  name: string;
  url: string;
  state: WebhookState;
  disabledReason: WebhookDisabledReason | null;
  failingSince: string | null;
  lastSuccessAt: string | null;
  count: number | null;
  occurredAt: string;
};

/** Render the subscription object; keys in contract order. */
export function renderSubscription(record: SubscriptionRecord): PublicSubscription {
  return {
    id: record.id,
    status: record.status,
    event: record.event ?? null,
    referenceId: record.referenceId ?? null,
    amount: record.amount,
    currency: record.currency,
    interval: record.interval,
    integrationId: record.integrationId ?? null,
    createdAt: toIsoInstant(record.createdAt, 'createdAt'),
    updatedAt: toIsoInstant(record.updatedAt, 'updatedAt'),
  };
}

/** Render the payout object; keys in contract order. */
export function renderPayout(record: PayoutRecord): PublicPayout {
  return {
    id: record.id,
    status: record.status,
    amount: record.amount,
    currency: record.currency,
    createdAt: toIsoInstant(record.createdAt, 'createdAt'),
  };
}

/** Render the webhook object of an operational event; keys in contract order. */
export function renderWebhook(record: WebhookRecord): PublicWebhook {
  return {
    id: record.id,
    name: record.name,
    url: record.url,
    state: record.state,
    disabledReason: record.disabledReason ?? null,
    failingSince: record.failingSince == null ? null : toIsoInstant(record.failingSince, 'failingSince'),
    lastSuccessAt: record.lastSuccessAt == null ? null : toIsoInstant(record.lastSuccessAt, 'lastSuccessAt'),
    count: record.count ?? null,
    occurredAt: toIsoInstant(record.occurredAt, 'occurredAt'),
  };
}

/** The renderers of one webhook version. */
export interface WebhookVersionRenderers<T extends object> {
  transaction(record: TransactionRecord): T;
  subscription(record: SubscriptionRecord): PublicSubscription;
  payout(record: PayoutRecord): PublicPayout;
  webhook(record: WebhookRecord): PublicWebhook;
}

/** Every field is dated by a webhook version (`since.webhook`): a version missing from the list fails to compile. */
const SINCE_IS_A_VERSION: [TransactionFieldRow['since']['webhook']] extends [WebhookVersion] ? true : false = true;
void SINCE_IS_A_VERSION;

/** The transaction object of webhook version `V`: the fields dated at or before it (`since.webhook`). */
export type WebhookTransaction<V extends WebhookVersion = WebhookVersion> = V extends WebhookVersion
  ? TransactionObjectOf<TransactionFieldsSince<'webhook', typeof WEBHOOK_VERSIONS, V>>
  : never;

/**
 * The renderers of each webhook version. Its transaction renderer writes the fields of `TRANSACTION_FIELDS` whose
 * `since.webhook` is at or before it in {@link WEBHOOK_VERSIONS}, shared with the API versions of the same fields
 * (today 2025-01-15: as API 1.0–1.16; 2026-08-20: as 1.17, with `3dsecure`). Derived: no version is named here but in
 * the list.
 */
export const WEBHOOK_RENDERERS = perVersion<
  WebhookVersion,
  { [V in WebhookVersion]: Readonly<WebhookVersionRenderers<WebhookTransaction<V>>> }
>(WEBHOOK_VERSIONS, (version) =>
  Object.freeze({
    transaction: transactionRenderer(transactionFieldsSince(TRANSACTION_FIELDS, 'webhook', WEBHOOK_VERSIONS, version)),
    subscription: renderSubscription,
    payout: renderPayout,
    webhook: renderWebhook,
  }),
);

/** The payload tree of webhook version `V` for a subject `S`. */
export type WebhookPayload<
  V extends WebhookVersion = WebhookVersion,
  S extends WebhookSubject = WebhookSubject,
> = S extends { type: 'transaction' }
  ? { transaction: WebhookTransaction<V> }
  : S extends { type: 'subscription' }
    ? { subscription: PublicSubscription }
    : S extends { type: 'payout' }
      ? { payout: PublicPayout }
      : { webhook: PublicWebhook };

/**
 * Render the payload tree of a webhook: `{transaction}`, `{subscription}`, `{payout}` or `{webhook}`. Encode it with
 * `encodePayload` of `payload-encoding.ts`.
 *
 * @throws {RangeError} for an unknown version, subject type or an invalid date.
 */
export function renderWebhookPayload<V extends WebhookVersion, S extends WebhookSubject>(
  version: V,
  subject: S,
): WebhookPayload<V, S> {
  if (!isWebhookVersion(version)) {
    throw new RangeError(`Unknown webhook version: ${String(version).slice(0, 20)}`);
  }
  const renderers: WebhookVersionRenderers<object> = WEBHOOK_RENDERERS[version];
  const s: WebhookSubject = subject;
  switch (s.type) {
    case 'transaction':
      return { transaction: renderers.transaction(s.transaction) } as WebhookPayload<V, S>;
    case 'subscription':
      return { subscription: renderers.subscription(s.subscription) } as WebhookPayload<V, S>;
    case 'payout':
      return { payout: renderers.payout(s.payout) } as WebhookPayload<V, S>;
    case 'webhook':
      return { webhook: renderers.webhook(s.webhook) } as WebhookPayload<V, S>;
    default:
      throw new RangeError(`Unknown webhook event type: ${String((s as { type: unknown }).type).slice(0, 20)}`);
  }
}
