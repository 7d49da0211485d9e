import type { ThreeDSecure, TransactionRecord, TransactionStatus, TransactionType, PaymentMethod } from '#domain';

/** A stored transaction. */
export interface TransactionRow {
  uuid: string;
  merchantId: string;
  integrationId: string | null;
  referenceId: string | null;
  status: TransactionStatus;
  psp: string;
  type: TransactionType;
  paymentMethod: PaymentMethod;
  amount: number;
  currency: string;
  threeDSecure: ThreeDSecure | null;
  createdAt: Date;
  updatedAt: Date;
}

/** The columns of a TransactionRow, for SELECT and RETURNING. */
export const TRANSACTION_COLUMNS = `uuid, merchant_id AS "merchantId", integration_id AS "integrationId", reference_id AS "referenceId",
  status, psp, type, payment_method AS "paymentMethod", amount, currency, three_d_secure AS "threeDSecure",
  created_at AS "createdAt", updated_at AS "updatedAt"`;

/** pg returns bigint as a string; amounts stay far below 2^53. */
export function toTransactionRow(raw: Record<string, unknown>): TransactionRow {
  return { ...(raw as unknown as TransactionRow), amount: Number(raw.amount) };
}

/** The record libs/domain's renderers and the events take. */
export function toTransactionRecord(row: TransactionRow): TransactionRecord {
  return {
    uuid: row.uuid,
    referenceId: row.referenceId,
    status: row.status,
    psp: row.psp,
    type: row.type,
    paymentMethod: row.paymentMethod,
    amount: row.amount,
    currency: row.currency,
    integrationId: row.integrationId,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    threeDSecure: row.threeDSecure,
  };
}

/** SQL of a timestamptz as `Date.prototype.toISOString()` writes it (UTC, milliseconds, `Z`). */
const isoInstant = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * SQL of the `transaction.*` event envelope (libs/messaging's PlatformEvent) for the transaction row `t` (raw
 * columns), with the event id and type as parameters `$first` and `$first + 1`. Parsed, it equals what
 * `JSON.stringify(platformEvent(...))` with `data: toTransactionRecord(row)` gives (spacing and the key order inside
 * `threeDSecure` differ; consumers parse it); built by the statement that
 * writes the row, so an event carries what was committed and a status change needs no read first. Kept equal to
 * `platformEvent()` + `toTransactionRecord()` by transaction.events.medium-spec.ts.
 */
export function transactionEventJson(t: string, first: number): string {
  return `json_build_object(
    'v', 1, 'id', $${first}::uuid, 'type', $${first + 1}::text, 'category', 'transaction',
    'merchantId', ${t}.merchant_id, 'integrationId', ${t}.integration_id,
    'occurredAt', ${isoInstant(`${t}.updated_at`)}, 'subjectId', ${t}.uuid,
    'data', json_build_object(
      'uuid', ${t}.uuid, 'referenceId', ${t}.reference_id, 'status', ${t}.status, 'psp', ${t}.psp, 'type', ${t}.type,
      'paymentMethod', ${t}.payment_method, 'amount', ${t}.amount, 'currency', ${t}.currency,
      'integrationId', ${t}.integration_id, 'createdAt', ${isoInstant(`${t}.created_at`)},
      'updatedAt', ${isoInstant(`${t}.updated_at`)}, 'threeDSecure', ${t}.three_d_secure))`;
}
