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
