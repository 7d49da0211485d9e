import { Inject, Injectable } from '@nestjs/common';
import type pg from 'pg';
import type { EntityManager } from 'typeorm';
import { PG_POOL } from '../common/pg-pool.js';
import type { TransactionCursor } from './transaction.cursor.js';
import { TRANSACTION_COLUMNS, TransactionRow, toTransactionRow } from './transaction.row.js';

export type NewTransaction = TransactionRow & { fingerprint: Buffer };

export interface TransactionFilters {
  status?: string;
  referenceId?: string;
  psp?: string;
  type?: string;
  createdFrom?: Date;
  createdTo?: Date;
}

/**
 * Transactions. Writes take the EntityManager of the caller's database transaction; reads for the merchant API go
 * straight to the pool with named (prepared) statements.
 */
@Injectable()
export class TransactionRepository {
  constructor(@Inject(PG_POOL) private readonly pool: pg.Pool) {}

  /** Inserts unless the uuid exists; returns the new row, or null when the uuid was taken. */
  async insertIfAbsent(manager: EntityManager, row: NewTransaction): Promise<TransactionRow | null> {
    const rows: Record<string, unknown>[] = await manager.query(
      `INSERT INTO transaction (uuid, merchant_id, integration_id, reference_id, status, psp, type, payment_method,
                                amount, currency, three_d_secure, creation_fingerprint, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
       ON CONFLICT (uuid) DO NOTHING
       RETURNING ${TRANSACTION_COLUMNS}`,
      [
        row.uuid,
        row.merchantId,
        row.integrationId,
        row.referenceId,
        row.status,
        row.psp,
        row.type,
        row.paymentMethod,
        row.amount,
        row.currency,
        row.threeDSecure === null ? null : JSON.stringify(row.threeDSecure),
        row.fingerprint,
        row.createdAt,
        row.updatedAt,
      ],
    );
    return rows.length ? toTransactionRow(rows[0]) : null;
  }

  async findWithFingerprint(manager: EntityManager, uuid: string): Promise<{ row: TransactionRow; fingerprint: Buffer } | null> {
    const rows: Record<string, unknown>[] = await manager.query(
      `SELECT ${TRANSACTION_COLUMNS}, creation_fingerprint AS fingerprint FROM transaction WHERE uuid = $1`,
      [uuid],
    );
    if (!rows.length) return null;
    const { fingerprint, ...row } = rows[0];
    return { row: toTransactionRow(row), fingerprint: fingerprint as Buffer };
  }

  /** Reads and locks a transaction until the end of the caller's database transaction. */
  async findForUpdate(manager: EntityManager, uuid: string): Promise<TransactionRow | null> {
    const rows: Record<string, unknown>[] = await manager.query(
      `SELECT ${TRANSACTION_COLUMNS} FROM transaction WHERE uuid = $1 FOR UPDATE`,
      [uuid],
    );
    return rows.length ? toTransactionRow(rows[0]) : null;
  }

  async updateStatus(manager: EntityManager, uuid: string, status: string, updatedAt: Date): Promise<TransactionRow> {
    const [rows]: [Record<string, unknown>[], number] = await manager.query(
      `UPDATE transaction SET status = $2, updated_at = $3 WHERE uuid = $1 RETURNING ${TRANSACTION_COLUMNS}`,
      [uuid, status, updatedAt],
    );
    return toTransactionRow(rows[0]);
  }

  /** One transaction of one merchant: another merchant's uuid is simply not found. */
  async findOfMerchant(merchantId: string, uuid: string): Promise<TransactionRow | null> {
    const { rows } = await this.pool.query({
      name: 'transaction-of-merchant',
      text: `SELECT ${TRANSACTION_COLUMNS} FROM transaction WHERE uuid = $1 AND merchant_id = $2`,
      values: [uuid, merchantId],
    });
    return rows.length ? toTransactionRow(rows[0]) : null;
  }

  /**
   * A page of one merchant's transactions, newest first (created_at DESC, uuid DESC), strictly after `after`.
   * The merchant, the equality filters and the row comparison on (created_at, uuid) are all index conditions of
   * one of the *_page_idx indexes, so the cost does not depend on how deep the page is.
   */
  async page(merchantId: string, filters: TransactionFilters, after: TransactionCursor | undefined, limit: number): Promise<TransactionRow[]> {
    const values: unknown[] = [merchantId];
    const where = ['merchant_id = $1'];
    let shape = '';
    const add = (flag: string, sql: (n: number) => string, value: unknown) => {
      values.push(value);
      where.push(sql(values.length));
      shape += flag;
    };
    if (filters.status !== undefined) add('s', (n) => `status = $${n}`, filters.status);
    if (filters.referenceId !== undefined) add('r', (n) => `reference_id = $${n}`, filters.referenceId);
    if (filters.psp !== undefined) add('p', (n) => `psp = $${n}`, filters.psp);
    if (filters.type !== undefined) add('t', (n) => `type = $${n}`, filters.type);
    if (filters.createdFrom !== undefined) add('f', (n) => `created_at >= $${n}`, filters.createdFrom);
    if (filters.createdTo !== undefined) add('u', (n) => `created_at <= $${n}`, filters.createdTo);
    if (after) {
      values.push(after.createdAt, after.uuid);
      where.push(`(created_at, uuid) < ($${values.length - 1}, $${values.length})`);
      shape += 'c';
    }
    values.push(limit);
    const { rows } = await this.pool.query({
      // One prepared statement per combination of filters (at most 2^7 per connection).
      name: `transaction-page-${shape}`,
      text: `SELECT ${TRANSACTION_COLUMNS} FROM transaction WHERE ${where.join(' AND ')}
             ORDER BY created_at DESC, uuid DESC LIMIT $${values.length}`,
      values,
    });
    return rows.map(toTransactionRow);
  }
}
