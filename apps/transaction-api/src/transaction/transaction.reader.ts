import { Injectable } from '@nestjs/common';
import { renderTransaction, type ApiVersion, type PublicTransaction } from '#domain';
import { ProblemException } from '#platform';
import { parseInstant } from '../common/instant.js';
import { decodeCursor, encodeCursor } from './transaction.cursor.js';
import type { ListTransactionsQuery } from './transaction.dto.js';
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
    if (!row) throw new ProblemException(404, 'No transaction has this uuid.');
    return renderTransaction(version, toTransactionRecord(row));
  }

  async list(merchantId: string, query: ListTransactionsQuery, version: ApiVersion): Promise<TransactionPage> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
    const rows = await this.transactions.page(
      merchantId,
      {
        status: query.status,
        referenceId: query.referenceId,
        psp: query.psp,
        type: query.type,
        createdFrom: query.createdFrom === undefined ? undefined : parseInstant(query.createdFrom),
        createdTo: query.createdTo === undefined ? undefined : parseInstant(query.createdTo),
      },
      after,
      limit + 1,
    );
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      data: page.map((row) => renderTransaction(version, toTransactionRecord(row))),
      nextCursor: rows.length > limit ? encodeCursor({ createdAt: last.createdAt, uuid: last.uuid }) : null,
    };
  }
}
