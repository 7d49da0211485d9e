import { TRANSACTION_FIELDS, type TransactionField, type TransactionRecord } from '#domain';

/*
 * The SQL of payments.transaction's columns comes from #domain's table of the transaction's fields
 * (transaction-fields.ts): a field is a column there, read as its record key. Beside the fields, a row has its
 * merchant and (written only) its creation fingerprint.
 */

/** A stored transaction: the record's fields as the driver reads them, and its merchant. */
export type TransactionRow = Required<Omit<TransactionRecord, 'createdAt' | 'updatedAt'>> & {
  merchantId: string;
  createdAt: Date;
  updatedAt: Date;
};

/** The columns of a row that are no field of the transaction (`merchantId` first, then the fingerprint's). */
const MERCHANT = { column: 'merchant_id', record: 'merchantId' } as const;

const selected = ({ column, record }: { column: string; record: string }) =>
  column === record ? column : `${column} AS "${record}"`;

/** The columns of a TransactionRow, for SELECT and RETURNING. */
export const TRANSACTION_COLUMNS = [...TRANSACTION_FIELDS, MERCHANT].map(selected).join(', ');

/** The columns an INSERT of a new transaction writes: the fields', the merchant and the creation fingerprint. */
export const TRANSACTION_INSERT_COLUMNS = [
  ...TRANSACTION_FIELDS.map((field) => field.column),
  MERCHANT.column,
  'creation_fingerprint',
];

/** A field's value as a query parameter (an object column is sent as JSON text). */
function parameter(field: TransactionField, row: TransactionRow): unknown {
  const value = (row as unknown as Record<string, unknown>)[field.record];
  return field.type === 'threeDSecure' && value !== null ? JSON.stringify(value) : value;
}

/** The parameters of {@link TRANSACTION_INSERT_COLUMNS} for a new row. */
export function transactionInsertValues(row: TransactionRow, fingerprint: Buffer): unknown[] {
  return [...TRANSACTION_FIELDS.map((field) => parameter(field, row)), row.merchantId, fingerprint];
}

/** pg returns bigint as a string; amounts stay far below 2^53. */
export function toTransactionRow(raw: Record<string, unknown>): TransactionRow {
  return { ...(raw as unknown as TransactionRow), amount: Number(raw.amount) };
}

/** The record libs/domain's renderers and the events take: the row's fields, in the table's order. */
export function toTransactionRecord(row: TransactionRow): TransactionRecord {
  const fields = row as unknown as Record<string, unknown>;
  return Object.fromEntries(
    TRANSACTION_FIELDS.map((field) => [field.record, fields[field.record]]),
  ) as unknown as TransactionRecord;
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
    'data', json_build_object(${TRANSACTION_FIELDS.map((field) => `'${field.record}', ${eventValue(field, t)}`).join(', ')}))`;
}

/** SQL of a field's value in an event (`t`'s column; an instant as JSON.stringify writes a Date). */
function eventValue(field: TransactionField, t: string): string {
  return field.type === 'instant' ? isoInstant(`${t}.${field.column}`) : `${t}.${field.column}`;
}
