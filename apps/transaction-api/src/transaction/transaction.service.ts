import { Injectable } from '@nestjs/common';
import { randomUUID, randomUUIDv7 } from 'node:crypto';
import { LATEST_API_VERSION, renderTransaction, resolveThreeDSecure, type PublicTransaction } from '#domain';
import { idTaken } from '../common/idempotency.js';
import { parseInstant } from '#platform';
import { ReferenceChecker } from '../merchant/reference.checker.js';
import { OutboxWriter } from '../outbox/outbox.writer.js';
import type { ChangeTransactionStatusDto, CreateTransactionDto } from './transaction.dto.js';
import { TransactionException, TransactionExceptionCode } from './transaction.exception.js';
import { creationFingerprint } from './transaction.fingerprint.js';
import { TransactionRepository } from './transaction.repository.js';
import { TransactionRow, toTransactionRecord } from './transaction.row.js';
import { STATUSES_BEFORE, statusMove, TRANSACTION_STATUS_MOVES } from './transaction.status-machine.js';

type LatestTransaction = PublicTransaction<typeof LATEST_API_VERSION>;

export interface RecordedTransaction {
  transaction: LatestTransaction;
  /** false when the uuid was recorded before with the same data (an idempotent retry). */
  created: boolean;
}

/** How far ahead of this server's clock an imported `createdAt` may be (the caller's clock may run ahead). */
export const FUTURE_CREATED_AT_MS = 5 * 60_000;

/** A status change that keeps losing races this often is answered 409 (the caller retries). */
const STATUS_CHANGE_ATTEMPTS = 5;

/**
 * Records payments and their status changes (platform API). Each change and its event are written by one statement
 * (see TransactionRepository), i.e. in one database transaction and one round trip; the relay is woken right after.
 */
@Injectable()
export class TransactionService {
  constructor(
    private readonly transactions: TransactionRepository,
    private readonly references: ReferenceChecker,
    private readonly outbox: OutboxWriter,
  ) {}

  async record(input: CreateTransactionDto): Promise<RecordedTransaction> {
    const merchantId = input.merchantId.toLowerCase();
    const integrationId = input.integrationId?.toLowerCase() ?? null;
    await this.references.check(merchantId, integrationId);
    // The raw authentication goes no further than this line: only its resolved public form is kept.
    const threeDSecure = resolveThreeDSecure({
      type: input.type,
      paymentMethod: input.paymentMethod,
      authentication: input.authentication,
    });
    const importedAt = input.createdAt === undefined ? undefined : parseInstant(input.createdAt);
    const now = new Date();
    if (importedAt && importedAt.getTime() > now.getTime() + FUTURE_CREATED_AT_MS) {
      // An import is of the past; a later date is a clock or time-zone mistake, and its row would top every list.
      throw new TransactionException(
        'createdAt must not be in the future.',
        TransactionExceptionCode.CREATED_AT_IN_FUTURE,
        [{ field: 'createdAt', message: 'must not be in the future' }],
      );
    }
    const createdAt = importedAt ?? now;
    const row: TransactionRow = {
      uuid: input.uuid?.toLowerCase() ?? randomUUID(),
      merchantId,
      integrationId,
      referenceId: input.referenceId ?? null,
      status: input.status,
      psp: input.psp,
      type: input.type,
      paymentMethod: input.paymentMethod,
      amount: input.amount,
      currency: input.currency,
      threeDSecure,
      createdAt,
      updatedAt: createdAt > now ? createdAt : now,
    };
    const fingerprint = creationFingerprint({ ...row, createdAt: importedAt?.toISOString() ?? null });

    const inserted = await this.transactions.insertWithEvent(
      { ...row, fingerprint },
      randomUUIDv7(),
      this.outbox.mustNotify,
    );
    if (inserted) {
      this.outbox.committed();
      return { transaction: render(row), created: true };
    }
    const existing = await this.transactions.findWithFingerprint(row.uuid);
    if (!existing || !existing.fingerprint.equals(fingerprint)) {
      throw new TransactionException(...idTaken('transaction', TransactionExceptionCode.IDEMPOTENCY_CONFLICT, 'uuid'));
    }
    return { transaction: render(existing.row), created: false };
  }

  /** Moves a transaction to `status` if the state machine allows it; the same status again changes nothing. */
  async changeStatus(uuid: string, input: ChangeTransactionStatusDto): Promise<LatestTransaction> {
    const from = STATUSES_BEFORE[input.status];
    for (let attempt = 0; attempt < STATUS_CHANGE_ATTEMPTS; attempt += 1) {
      const outcome = await this.transactions.changeStatusWithEvent(
        uuid,
        input.status,
        from,
        new Date(),
        randomUUIDv7(),
        this.outbox.mustNotify,
      );
      if (!outcome) throw new TransactionException('No transaction has this uuid.', TransactionExceptionCode.NOT_FOUND);
      const { before, changedAt } = outcome;
      if (changedAt) {
        this.outbox.committed();
        return render({ ...before, status: input.status, updatedAt: changedAt });
      }
      const move = statusMove(before.status, input.status);
      if (move === 'same') return render(before);
      if (move === 'forbidden') {
        const allowed = TRANSACTION_STATUS_MOVES[before.status];
        throw new TransactionException(
          `A transaction in status ${before.status} cannot move to ${input.status}; ` +
            (allowed.length ? `allowed: ${allowed.join(', ')}.` : `${before.status} is final.`),
          TransactionExceptionCode.STATUS_TRANSITION_FORBIDDEN,
        );
      }
      // Allowed, yet another change won the race: decide again on the newer reading.
    }
    throw new TransactionException(
      'The transaction changed concurrently; send the status again.',
      TransactionExceptionCode.CONCURRENT_STATUS_CHANGE,
    );
  }
}

const render = (row: TransactionRow) => renderTransaction(LATEST_API_VERSION, toTransactionRecord(row));
