/**
 * Renderers of the public transaction object (read API and webhooks). Each renderer is a pure function of the
 * record that writes the keys of its fields (`transaction-fields.ts`), in their order; the versioned registries
 * (`api-version.ts`, `webhook-version.ts`) map a version to one of these.
 */
import type { PaymentMethod, TransactionStatus, TransactionType } from './payment.constants.js';
import { toIsoInstant, type TransactionRecord } from './record.shapes.js';
import type { ThreeDSecure } from './three-d-secure.js';
import {
  FIRST_TRANSACTION_FIELDS,
  transactionField,
  type SameKeys,
  type TransactionField,
  type TransactionFieldKey,
} from './transaction-fields.js';

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

/**
 * Copy a stored `3dsecure` object with exactly its four public keys (a stored JSON column may carry more).
 * A missing object is `null`.
 */
export function publicThreeDSecure(value: ThreeDSecure | null | undefined): ThreeDSecure | null {
  if (value === null || value === undefined) return null;
  return { eci: value.eci, source: value.source, version: value.version ?? null, flow: value.flow ?? null };
}

/** The public value of one field of the record. */
function publicValue(field: TransactionField, record: TransactionRecord): unknown {
  const value = (record as unknown as Record<string, unknown>)[field.record];
  switch (field.type) {
    case 'instant':
      return toIsoInstant(value as TransactionRecord['createdAt'], field.key);
    case 'threeDSecure':
      return publicThreeDSecure(value as ThreeDSecure | null | undefined);
    default:
      return field.nullable ? (value ?? null) : value;
  }
}

/** The renderer of exactly `fields`, in their order. */
function rendererOf<T>(fields: readonly TransactionField[]): (record: TransactionRecord) => T {
  return (record) => {
    const rendered: Record<string, unknown> = {};
    for (const field of fields) rendered[field.key] = publicValue(field, record);
    return rendered as T;
  };
}

const renderedFields = new Map<unknown, readonly TransactionField[]>();

/** The fields each transaction renderer writes, in order (the payload schemas are made of them). */
export const RENDERED_TRANSACTION_FIELDS: ReadonlyMap<unknown, readonly TransactionField[]> = renderedFields;

function transactionRenderer<T>(fields: readonly TransactionField[]): (record: TransactionRecord) => T {
  const render = rendererOf<T>(fields);
  renderedFields.set(render, fields);
  return render;
}

/** Render the base transaction object (the first version's fields); keys in contract order. */
export const renderTransactionBase = transactionRenderer<PublicTransactionBase>(FIRST_TRANSACTION_FIELDS);

/** Render the transaction object with the `3dsecure` key (always present, object or `null`). */
export const renderTransactionWithThreeDSecure = transactionRenderer<PublicTransactionWithThreeDSecure>([
  ...FIRST_TRANSACTION_FIELDS,
  transactionField('3dsecure'),
]);

/** The public object's type has exactly the table's keys (a field added to one only fails to compile). */
const KEYS_MATCH: SameKeys<keyof PublicTransactionWithThreeDSecure, TransactionFieldKey> = true;
void KEYS_MATCH;
