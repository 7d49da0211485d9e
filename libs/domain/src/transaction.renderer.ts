/**
 * Renderers of the public transaction object (read API and webhooks). A renderer is a pure function of the record
 * that writes the keys of a list of fields (`transaction-fields.ts`), in their order; the versioned registries
 * (`api-version.ts`, `webhook-version.ts`) give each version the renderer of the fields dated at or before it.
 */
import { toIsoInstant, type TransactionRecord } from './record.shapes.js';
import type { ThreeDSecure } from './three-d-secure.js';
import type { TransactionField } from './transaction-fields.js';

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

/** A renderer of the transaction object. */
export type TransactionRenderer<T = object> = (record: TransactionRecord) => T;

const renderedFields = new Map<unknown, readonly TransactionField[]>();
const renderers = new Map<string, TransactionRenderer>();

/** The fields each transaction renderer writes, in order (the payload schemas and OpenAPI classes are made of them). */
export const RENDERED_TRANSACTION_FIELDS: ReadonlyMap<unknown, readonly TransactionField[]> = renderedFields;

/**
 * The renderer of exactly `fields`, in their order: one function for each list of keys, so that the versions whose
 * objects are the same (API 1.0–1.16, webhook version 2025-01-15) share it.
 */
export function transactionRenderer<T = object>(fields: readonly TransactionField[]): TransactionRenderer<T> {
  const id = JSON.stringify(fields.map((field) => field.key));
  let render = renderers.get(id);
  if (render === undefined) {
    const own = [...fields];
    render = (record) => {
      const rendered: Record<string, unknown> = {};
      for (const field of own) rendered[field.key] = publicValue(field, record);
      return rendered;
    };
    renderers.set(id, render);
    renderedFields.set(render, own);
  }
  return render as TransactionRenderer<T>;
}
