import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { renderPayout, type PublicPayout } from '#domain';
import { idTaken } from '../common/idempotency.js';
import { ReferenceChecker } from '../merchant/reference.checker.js';
import { platformEvent } from '../outbox/platform-event.js';
import { UnitOfWork } from '../outbox/unit-of-work.js';
import type { CreatePayoutDto } from './payout.dto.js';
import { PayoutException, PayoutExceptionCode } from './payout.exception.js';
import { PayoutRepository, type PayoutRow } from './payout.repository.js';

export interface RecordedPayout {
  payout: PublicPayout;
  /** false when the id was recorded before with the same data (an idempotent retry). */
  created: boolean;
}

/**
 * Records payouts (platform API) with their `payout.created` event in one database transaction. An `id` sent by the
 * caller makes the request idempotent: the same id and data again answer the stored payout, with no new event.
 */
@Injectable()
export class PayoutService {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly payouts: PayoutRepository,
    private readonly references: ReferenceChecker,
  ) {}

  async create(input: CreatePayoutDto): Promise<RecordedPayout> {
    const merchantId = input.merchantId.toLowerCase();
    await this.references.check(merchantId, null);
    const row: PayoutRow = {
      id: input.id?.toLowerCase() ?? randomUUID(),
      merchantId,
      amount: input.amount,
      currency: input.currency,
      status: 'initialised',
      createdAt: new Date(),
    };
    return this.unitOfWork.run(async ({ sql, emit }) => {
      if (!(await this.payouts.insert(sql, row))) {
        const stored = await this.payouts.find(sql, row.id);
        if (!stored || !sameRequest(stored, row)) {
          throw new PayoutException(...idTaken('payout', PayoutExceptionCode.IDEMPOTENCY_CONFLICT));
        }
        return { payout: renderPayout(toRecord(stored)), created: false };
      }
      // Payouts belong to no integration.
      await emit(
        platformEvent({
          type: 'payout.created',
          merchantId,
          integrationId: null,
          subjectId: row.id,
          occurredAt: row.createdAt,
          data: toRecord(row),
        }),
      );
      return { payout: renderPayout(toRecord(row)), created: true };
    });
  }
}

const toRecord = (row: PayoutRow) => ({
  id: row.id,
  status: row.status,
  amount: row.amount,
  currency: row.currency,
  createdAt: row.createdAt,
});

const sameRequest = (stored: PayoutRow, asked: PayoutRow) =>
  stored.merchantId === asked.merchantId && stored.amount === asked.amount && stored.currency === asked.currency;
