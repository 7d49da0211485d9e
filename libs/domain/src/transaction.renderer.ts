/**
 * Renderers of the public transaction object (read API and webhooks). Each renderer is a pure function of the
 * record; the versioned registries (`api-version.ts`, `webhook-version.ts`) map a version to one of these.
 */
import type { PaymentMethod, TransactionStatus, TransactionType } from './payment.constants.js';
import { toIsoInstant, type TransactionRecord } from './record.shapes.js';
import type { ThreeDSecure } from './three-d-secure.js';

/** The transaction object up to API 1.16 and in webhook version 2025-01-15. */
export type PublicTransactionBase = {
  uuid: string;
  referenceId: string | null;
  status: TransactionStatus;
  psp: string;
  type: TransactionType;
  paymentMethod: PaymentMethod;
  amount: number;
  currency: string;
  integrationId: string | null;
  createdAt: string;
  updatedAt: string;
};

/** The transaction object from API 1.17 and in webhook version 2026-08-20: the base plus `3dsecure`. */
export type PublicTransactionWithThreeDSecure = PublicTransactionBase & {
  '3dsecure': ThreeDSecure | null;
};

/** Render the base transaction object; keys in contract order. */
export function renderTransactionBase(record: TransactionRecord): PublicTransactionBase {
  return {
    uuid: record.uuid,
    referenceId: record.referenceId ?? null,
    status: record.status,
    psp: record.psp,
    type: record.type,
    paymentMethod: record.paymentMethod,
    amount: record.amount,
    currency: record.currency,
    integrationId: record.integrationId ?? null,
    createdAt: toIsoInstant(record.createdAt, 'createdAt'),
    updatedAt: toIsoInstant(record.updatedAt, 'updatedAt'),
  };
}

/**
 * Copy a stored `3dsecure` object with exactly its four public keys (a stored JSON column may carry more).
 * A missing object is `null`.
 */
export function publicThreeDSecure(value: ThreeDSecure | null | undefined): ThreeDSecure | null {
  if (value === null || value === undefined) return null;
  return { eci: value.eci, source: value.source, version: value.version ?? null, flow: value.flow ?? null };
}

/** Render the transaction object with the `3dsecure` key (always present, object or `null`). */
export function renderTransactionWithThreeDSecure(record: TransactionRecord): PublicTransactionWithThreeDSecure {
  return { ...renderTransactionBase(record), '3dsecure': publicThreeDSecure(record.threeDSecure) };
}
