/**
 * Enumerations of the payment data: transaction statuses, transaction types and payment methods.
 *
 * Every list is a readonly tuple so that the union types below are derived from the single source of truth. The
 * payment methods are an open list: the known ones are listed for documentation and examples, and any lowercase
 * slug is a payment method ({@link isPaymentMethod}); only the card networks change what a method means.
 */

/** The twelve transaction statuses, in the order the contract lists them. */
export const TRANSACTION_STATUSES = [
  'waiting',
  'confirmed',
  'authorized',
  'reserved',
  'uncaptured',
  'refund_pending',
  'refunded',
  'partially-refunded',
  'chargeback',
  'cancelled',
  'declined',
  'error',
] as const;

/** A transaction status, e.g. `confirmed`. */
export type TransactionStatus = (typeof TRANSACTION_STATUSES)[number];

/** Where the payment happened: online (`e-commerce`), at a terminal (`pos`) or on a phone used as terminal. */
export const TRANSACTION_TYPES = ['e-commerce', 'pos', 'tap-to-pay'] as const;

/** A transaction type. */
export type TransactionType = (typeof TRANSACTION_TYPES)[number];

/** Card networks (schemes). Only these can carry a 3-D Secure result. */
export const CARD_NETWORKS = [
  'visa',
  'mastercard',
  'amex',
  'discover',
  'diners',
  'jcb',
  'unionpay',
  'maestro',
  'cartes-bancaires',
] as const;

/** A card network. */
export type CardNetwork = (typeof CARD_NETWORKS)[number];

/**
 * Payment methods that are not a card network. Wallets (Apple Pay, Google Pay) are listed here: the contract treats
 * them as their own payment method, and they never carry a `3dsecure` object.
 */
export const NON_CARD_METHODS = [
  'twint',
  'invoice',
  'crypto',
  'apple-pay',
  'google-pay',
  'post-finance',
  'paypal',
] as const;

/** A payment method that is not a card network. */
export type NonCardMethod = (typeof NON_CARD_METHODS)[number];

/**
 * The payment methods the contract names: the card networks followed by the non-card methods. For documentation and
 * examples only — the list is open, so a method not listed here (`bank-transfer`, `klarna`) is recorded as well.
 */
export const KNOWN_PAYMENT_METHODS = [...CARD_NETWORKS, ...NON_CARD_METHODS] as const;

/** The longest payment method slug, in characters. */
export const PAYMENT_METHOD_MAX_LENGTH = 40;

/** A payment method slug: lowercase ASCII letters and digits in words joined by single hyphens. */
export const PAYMENT_METHOD_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/**
 * A payment method: any slug {@link isPaymentMethod} accepts, e.g. `visa` or `bank-transfer`. Every method that is
 * not one of {@link CARD_NETWORKS} is non-card.
 */
export type PaymentMethod = string;

const cardNetworks: ReadonlySet<string> = new Set(CARD_NETWORKS);

/**
 * Whether `method` is one of {@link CARD_NETWORKS}. The comparison is exact (lower case, as in the contract);
 * anything that is not a string gives `false`.
 */
export function isCardNetwork(method: unknown): method is CardNetwork {
  return typeof method === 'string' && cardNetworks.has(method);
}

/**
 * Whether `value` is a well-formed payment method: a slug of {@link PAYMENT_METHOD_PATTERN} of at most
 * {@link PAYMENT_METHOD_MAX_LENGTH} characters, known or not. No upper case, no leading, trailing or double hyphen,
 * no underscore, nothing outside ASCII.
 */
export function isPaymentMethod(value: unknown): value is PaymentMethod {
  return typeof value === 'string' && value.length <= PAYMENT_METHOD_MAX_LENGTH && PAYMENT_METHOD_PATTERN.test(value);
}
