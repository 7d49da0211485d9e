import { Injectable } from '@nestjs/common';
import { renderTransaction, type ApiVersion, type PublicTransaction } from '#domain';
import { parseInstant } from '#platform';
import { DEFAULT_ORDER, decodeCursor, encodeCursor } from './transaction.cursor.js';
import type { ListTransactionsQuery } from './transaction.dto.js';
import { TransactionException, TransactionExceptionCode } from './transaction.exception.js';
import { TransactionRepository } from './transaction.repository.js';
import { toTransactionRecord } from './transaction.row.js';

export const DEFAULT_PAGE_SIZE = 20;

export interface TransactionPage {
  data: PublicTransaction[];
  nextCursor: string | null;
}

/** The merchant read API: one merchant's transactions, rendered in the requested API version. */
@Injectable()
export class TransactionReader {
  constructor(private readonly transactions: TransactionRepository) {}

  async get(merchantId: string, uuid: string, version: ApiVersion): Promise<PublicTransaction> {
    const row = await this.transactions.findOfMerchant(merchantId, uuid);
    // Another merchant's transaction answers exactly like an unknown uuid.
    if (!row) throw new TransactionException('No transaction has this uuid.', TransactionExceptionCode.NOT_FOUND);
    return renderTransaction(version, toTransactionRecord(row));
  }

  async list(merchantId: string, query: ListTransactionsQuery, version: ApiVersion): Promise<TransactionPage> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const order = query.order ?? DEFAULT_ORDER;
    const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor, order);
    const rows = await this.transactions.page(
      merchantId,
      {
        status: query.status,
        referenceId: query.referenceId,
        psp: query.psp,
        type: query.type,
        createdFrom: parseInstant(query.createdFrom),
        createdTo: parseInstant(query.createdTo),
        updatedFrom: parseInstant(query.updatedFrom),
        updatedTo: parseInstant(query.updatedTo),
      },
      order,
      after,
      limit + 1,
    );
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      data: page.map((row) => renderTransaction(version, toTransactionRecord(row))),
      nextCursor:
        rows.length > limit
          ? encodeCursor(order, { at: order === 'updatedAt' ? last.updatedAt : last.createdAt, uuid: last.uuid })
          : null,
    };
  }
}
