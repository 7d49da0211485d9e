/**
 * Internal record shapes the apps hand to the renderers. They are deliberately loose about dates (a `Date` from the
 * database driver or an ISO string from a message) and strict about everything the public objects contain.
 */
import type {
  FirstTransactionFieldRow,
  Flat,
  TransactionFieldRow,
  TransactionFieldValue,
} from './transaction-fields.js';

/** A point in time: a `Date` or anything `new Date(x)` reads (ISO 8601 string, epoch milliseconds). */
export type Instant = Date | string | number;

/**
 * A stored transaction, as the apps load it: one key per field of `TRANSACTION_FIELDS` (`transaction-fields.ts`), its
 * record key, with its value's type (`null` allowed when the field is nullable; an `instant` is an {@link Instant}).
 * The fields of the first version are required; a field added later is optional, since records written before it
 * lack it (read as `null`). `threeDSecure` is the already resolved object (or `null`).
 */
export type TransactionRecord = Flat<
  {
    -readonly [F in FirstTransactionFieldRow as F['record']]: TransactionFieldValue<F, Instant>;
  } & {
    -readonly [F in Exclude<TransactionFieldRow, FirstTransactionFieldRow> as F['record']]?: TransactionFieldValue<
      F,
      Instant
    >;
  }
>;

/** A stored subscription together with the event being reported. */
export interface SubscriptionRecord {
  id: string;
  status: string;
  /** The subscription event this record reports, e.g. `renewed`; `null` when none. */
  event: string | null;
  referenceId: string | null;
  amount: number;
  currency: string;
  /** Billing interval as stored, e.g. `P1M` or `monthly`. */
  interval: string;
  integrationId: string | null;
  createdAt: Instant;
  updatedAt: Instant;
}

/** A stored payout. Payouts belong to no integration. */
export interface PayoutRecord {
  id: string;
  status: string;
  amount: number;
  currency: string;
  createdAt: Instant;
}

/** A webhook's health state, as the backend shows it (CONTRACT §5). */
export const WEBHOOK_STATES = ['healthy', 'failing', 'disabled'] as const;
export type WebhookState = (typeof WEBHOOK_STATES)[number];

/** Why a webhook is disabled: by its merchant, failing for WEBHOOK_DISABLE_AFTER, or its URL answered 410 Gone. */
export const WEBHOOK_DISABLED_REASONS = ['manual', 'failing', 'gone'] as const;
export type WebhookDisabledReason = (typeof WEBHOOK_DISABLED_REASONS)[number];

/**
 * A merchant's webhook as an operational event (`webhook.failing`, `.disabled`, `.enabled`, `.recovered`) reports it,
 * as it was when the event occurred. Never its secret nor its headers.
 */
export interface WebhookRecord {
  id: string;
  name: string;
  url: string;
  state: WebhookState;
  disabledReason: WebhookDisabledReason | null;
  failingSince: Instant | null;
  lastSuccessAt: Instant | null;
  /** The events a finished recover sent (`webhook.recovered`); null for the other events. */
  count: number | null;
  occurredAt: Instant;
}

/** The subscription events the platform API accepts (`POST /internal/subscriptions/{id}/events`). */
export const SUBSCRIPTION_EVENTS = ['renewed', 'payment_failed', 'cancelled', 'ended'] as const;

/** A subscription event of the platform API. */
export type SubscriptionEvent = (typeof SUBSCRIPTION_EVENTS)[number];

/** The statuses of a subscription: a new one is `active`; its events move it (transaction-api's lifecycle). */
export const SUBSCRIPTION_STATUSES = ['active', 'past_due', 'cancelled', 'ended'] as const;

/** A subscription status. */
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

/**
 * Render an instant as ISO 8601 in UTC with milliseconds, e.g. `2026-11-22T10:00:00.000Z`.
 *
 * @throws {RangeError} when the value is not a valid date (the message names the field, never the value).
 */
export function toIsoInstant(value: Instant, field = 'date'): string {
  const date = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(date.getTime())) {
    throw new RangeError(`${field} is not a valid date`);
  }
  return date.toISOString();
}
