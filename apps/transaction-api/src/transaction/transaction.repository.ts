import { Inject, Injectable } from '@nestjs/common';
import type pg from 'pg';
import { activeTraceparent, ReadReplica } from '#platform';
import { sqlOf, type Sql } from '../common/sql.js';
import { notifyIf } from '../outbox/outbox.writer.js';
import { rethrowReferenceViolation } from '../common/pg-errors.js';
import { PG_POOL } from '../common/pg-pool.js';
import type { TransactionCursor, TransactionOrder } from './transaction.cursor.js';
import {
  TRANSACTION_COLUMNS,
  TRANSACTION_INSERT_COLUMNS,
  TransactionRow,
  toTransactionRow,
  transactionEventJson,
  transactionInsertValues,
} from './transaction.row.js';

export type NewTransaction = TransactionRow & { fingerprint: Buffer };

export interface TransactionFilters {
  status?: string;
  referenceId?: string;
  psp?: string;
  type?: string;
  /** Inclusive. */
  createdFrom?: Date;
  /** Exclusive. */
  createdTo?: Date;
  /** Inclusive. */
  updatedFrom?: Date;
  /** Exclusive. */
  updatedTo?: Date;
}

/** The keyset of each order: its column, direction, and how "after the cursor" compares. */
const KEYSETS = {
  '-createdAt': { flag: 'c', column: 'created_at', direction: 'DESC', after: '<' },
  updatedAt: { flag: 'u', column: 'updated_at', direction: 'ASC', after: '>' },
} as const;

/**
 * The statement of one page of a merchant's transactions in `order`, strictly after `after`: newest first
 * (created_at DESC, uuid DESC) or oldest change first (updated_at, uuid). The merchant, the order's column range and
 * the row comparison on (column, uuid) are index conditions of one index — newest first: one of the *_page_idx
 * indexes, whichever equality filter it leads with; oldest change first: transaction_updated_page_idx — so a page
 * reads about `limit` index entries however deep it is. Other filters are checked on the way.
 */
export function pageStatement(
  merchantId: string,
  filters: TransactionFilters,
  order: TransactionOrder,
  after: TransactionCursor | undefined,
  limit: number,
): pg.QueryConfig {
  const keyset = KEYSETS[order];
  const values: unknown[] = [merchantId];
  const where = ['merchant_id = $1'];
  let shape = keyset.flag;
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
  if (filters.createdTo !== undefined) add('o', (n) => `created_at < $${n}`, filters.createdTo);
  if (filters.updatedFrom !== undefined) add('g', (n) => `updated_at >= $${n}`, filters.updatedFrom);
  if (filters.updatedTo !== undefined) add('h', (n) => `updated_at < $${n}`, filters.updatedTo);
  if (after) {
    values.push(after.at, after.uuid);
    where.push(`(${keyset.column}, uuid) ${keyset.after} ($${values.length - 1}, $${values.length})`);
    shape += 'k';
  }
  values.push(limit);
  return {
    // One prepared statement per order and combination of filters (at most 2 × 2^9 per connection).
    name: `transaction-page-${shape}`,
    text: `SELECT ${TRANSACTION_COLUMNS} FROM transaction WHERE ${where.join(' AND ')}
           ORDER BY ${keyset.column} ${keyset.direction}, uuid ${keyset.direction} LIMIT $${values.length}`,
    values,
  };
}

/**
 * Transactions, on the pg pool with named (prepared) statements. Each write is a single statement that also appends
 * its outbox event, so the change and its event commit together in one round trip. The merchant read API's reads
 * (`findOfMerchant`, `page`) go to the read replica when there is one and it is up and in time (ReadReplica); every
 * write, and every read of the platform API (its answers, idempotency), stays on the primary.
 */
@Injectable()
export class TransactionRepository {
  private readonly sql: Sql;

  constructor(
    @Inject(PG_POOL) private readonly pool: pg.Pool,
    private readonly replica: ReadReplica<pg.Pool> = new ReadReplica(),
  ) {
    this.sql = sqlOf(pool);
  }

  /** A merchant read: on the replica, else on the primary (also when `missed` says the replica lacked the answer). */
  private read(statement: pg.QueryConfig, missed?: (result: pg.QueryResult) => boolean): Promise<pg.QueryResult> {
    return this.replica.read(
      (replica) => replica.query(statement),
      () => this.pool.query(statement),
      missed,
    );
  }

  /**
   * Inserts the transaction and, only if it was inserted, its `transaction.created` event (id `eventId`): one
   * statement, so one database transaction. Returns false when the uuid was taken (nothing is written then).
   */
  async insertWithEvent(row: NewTransaction, eventId: string, notify: boolean): Promise<boolean> {
    const values = transactionInsertValues(row, row.fingerprint);
    // The event's parameters follow the row's: $e the event id, $e+1 its type, $e+2 notify, $e+3 the traceparent.
    const e = values.length + 1;
    const rows = await this.sql
      .rows(
        `WITH inserted AS (
         INSERT INTO transaction (${TRANSACTION_INSERT_COLUMNS.join(', ')})
         VALUES (${values.map((_, i) => `$${i + 1}`).join(', ')})
         ON CONFLICT (uuid) DO NOTHING
         RETURNING *
       ), appended AS (
         INSERT INTO outbox_event (id, type, subject_id, payload, traceparent)
         SELECT $${e}, $${e + 1}, uuid, ${transactionEventJson('inserted', e)}, $${e + 3} FROM inserted
       )
       SELECT ${notifyIf(e + 2)} AS notified FROM inserted`,
        [...values, eventId, 'transaction.created', notify, activeTraceparent()],
        'transaction-insert',
      )
      .catch(rethrowReferenceViolation);
    return rows.length === 1;
  }

  async findWithFingerprint(uuid: string): Promise<{ row: TransactionRow; fingerprint: Buffer } | null> {
    const rows = await this.sql.rows(
      `SELECT ${TRANSACTION_COLUMNS}, creation_fingerprint AS fingerprint FROM transaction WHERE uuid = $1`,
      [uuid],
      'transaction-with-fingerprint',
    );
    if (!rows.length) return null;
    const { fingerprint, ...row } = rows[0];
    return { row: toTransactionRow(row), fingerprint: fingerprint as Buffer };
  }

  /**
   * Moves the transaction to `status` with its `transaction.status_changed` event (id `eventId`), in one statement,
   * if its status is one of `from`. Returns the transaction as it was before (null if there is none), whether it
   * changed and, if so, its new `updatedAt`. The UPDATE compares against that same reading (status and updated_at),
   * so a change committed concurrently in between makes it change nothing: the caller reads the answer again and
   * decides again. `updatedAt` only ever grows, by at least a millisecond per change, whatever this process's clock
   * says (an import may be dated a little ahead; another process's clock may be ahead): receivers of webhooks, which
   * are not delivered in order, keep the state with the newest `updatedAt`.
   */
  async changeStatusWithEvent(
    uuid: string,
    status: string,
    from: readonly string[],
    updatedAt: Date,
    eventId: string,
    notify: boolean,
  ): Promise<{ before: TransactionRow; changedAt: Date | null } | null> {
    const rows = await this.sql.rows(
      `WITH current AS (
         SELECT * FROM transaction WHERE uuid = $1
       ), changed AS (
         UPDATE transaction t SET status = $2, updated_at = GREATEST($3, c.updated_at + interval '1 millisecond')
           FROM current c
          WHERE t.uuid = c.uuid AND c.status = ANY($4::text[]) AND t.status = c.status AND t.updated_at = c.updated_at
         RETURNING t.*
       ), appended AS (
         INSERT INTO outbox_event (id, type, subject_id, payload, traceparent)
         SELECT $5, $6, uuid, ${transactionEventJson('changed', 5)}, $8 FROM changed
       )
       SELECT ${TRANSACTION_COLUMNS}, moved.changed_at, ${notifyIf(7, 'moved.changed_at IS NOT NULL')} AS notified
         FROM current LEFT JOIN (SELECT updated_at AS changed_at FROM changed) moved ON true`,
      [uuid, status, updatedAt, from, eventId, 'transaction.status_changed', notify, activeTraceparent()],
      'transaction-change-status',
    );
    if (!rows.length) return null;
    const { changed_at: changedAt, notified: _notified, ...before } = rows[0];
    return { before: toTransactionRow(before), changedAt: (changedAt as Date | null) ?? null };
  }

  /**
   * One transaction of one merchant: another merchant's uuid is simply not found. Not found on the replica, it is
   * looked up on the primary too: a merchant told of a new transaction (a webhook, the platform's answer) may ask for
   * it before the replica has replayed it.
   */
  async findOfMerchant(merchantId: string, uuid: string): Promise<TransactionRow | null> {
    const { rows } = await this.read(
      {
        name: 'transaction-of-merchant',
        text: `SELECT ${TRANSACTION_COLUMNS} FROM transaction WHERE uuid = $1 AND merchant_id = $2`,
        values: [uuid, merchantId],
      },
      (result) => result.rows.length === 0,
    );
    return rows.length ? toTransactionRow(rows[0]) : null;
  }

  /** A page of one merchant's transactions in `order`, strictly after `after` (see {@link pageStatement}). */
  async page(
    merchantId: string,
    filters: TransactionFilters,
    order: TransactionOrder,
    after: TransactionCursor | undefined,
    limit: number,
  ): Promise<TransactionRow[]> {
    const { rows } = await this.read(pageStatement(merchantId, filters, order, after, limit));
    return rows.map(toTransactionRow);
  }
}
