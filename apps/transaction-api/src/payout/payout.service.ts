import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { renderPayout, type PublicPayout } from '#domain';
import { ReferenceChecker } from '../merchant/reference.checker.js';
import { platformEvent } from '../outbox/platform-event.js';
import { UnitOfWork } from '../outbox/unit-of-work.js';
import type { CreatePayoutDto } from './payout.dto.js';
import { PayoutRepository, type PayoutRow } from './payout.repository.js';

/** Records payouts (platform API) with their `payout.created` event in one database transaction. */
@Injectable()
export class PayoutService {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly payouts: PayoutRepository,
    private readonly references: ReferenceChecker,
  ) {}

  async create(input: CreatePayoutDto): Promise<PublicPayout> {
    const merchantId = input.merchantId.toLowerCase();
    await this.references.check(merchantId, null);
    const row: PayoutRow = {
      id: randomUUID(),
      merchantId,
      amount: input.amount,
      currency: input.currency,
      status: 'initialised',
      createdAt: new Date(),
    };
    const record = {
      id: row.id,
      status: row.status,
      amount: row.amount,
      currency: row.currency,
      createdAt: row.createdAt,
    };
    return this.unitOfWork.run(async ({ sql, emit }) => {
      await this.payouts.insert(sql, row);
      // Payouts belong to no integration.
      await emit(
        platformEvent({
          type: 'payout.created',
          merchantId,
          integrationId: null,
          subjectId: row.id,
          occurredAt: row.createdAt,
          data: record,
        }),
      );
      return renderPayout(record);
    });
  }
}
