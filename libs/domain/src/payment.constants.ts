/**
 * Enumerations of the payment contract (CONTRACT §2): transaction statuses, transaction types and payment methods.
 *
 * Every list is a readonly tuple so that the union types below are derived from the single source of truth.
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

/** Every payment method: the card networks followed by the non-card methods. */
export const PAYMENT_METHODS = [...CARD_NETWORKS, ...NON_CARD_METHODS] as const;

/** A payment method. */
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];

const cardNetworks: ReadonlySet<string> = new Set(CARD_NETWORKS);
const transactionStatuses: ReadonlySet<string> = new Set(TRANSACTION_STATUSES);
const transactionTypes: ReadonlySet<string> = new Set(TRANSACTION_TYPES);
const paymentMethods: ReadonlySet<string> = new Set(PAYMENT_METHODS);

/**
 * Whether `method` is one of {@link CARD_NETWORKS}. The comparison is exact (lower case, as in the contract);
 * anything that is not a string gives `false`.
 */
export function isCardNetwork(method: unknown): method is CardNetwork {
  return typeof method === 'string' && cardNetworks.has(method);
}

/** Whether `value` is one of {@link TRANSACTION_STATUSES} (exact match). */
export function isTransactionStatus(value: unknown): value is TransactionStatus {
  return typeof value === 'string' && transactionStatuses.has(value);
}

/** Whether `value` is one of {@link TRANSACTION_TYPES} (exact match). */
export function isTransactionType(value: unknown): value is TransactionType {
  return typeof value === 'string' && transactionTypes.has(value);
}

/** Whether `value` is one of {@link PAYMENT_METHODS} (exact match). */
export function isPaymentMethod(value: unknown): value is PaymentMethod {
  return typeof value === 'string' && paymentMethods.has(value);
}
