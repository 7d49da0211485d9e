import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { renderSubscription, type PublicSubscription, type SubscriptionRecord } from '#domain';
import type { PlatformEventType } from '#messaging';
import { idTaken } from '../common/idempotency.js';
import { ReferenceChecker } from '../merchant/reference.checker.js';
import { platformEvent } from '../outbox/platform-event.js';
import { UnitOfWork } from '../outbox/unit-of-work.js';
import type { CreateSubscriptionDto, SubscriptionEventDto } from './subscription.dto.js';
import { SubscriptionException, SubscriptionExceptionCode } from './subscription.exception.js';
import { isRepeatedStateEvent, statusAfter, SUBSCRIPTION_EVENT_RULES } from './subscription.lifecycle.js';
import { SubscriptionRepository, SubscriptionRow } from './subscription.repository.js';

export interface RecordedSubscription {
  subscription: PublicSubscription;
  /** false when the id was recorded before with the same data (an idempotent retry). */
  created: boolean;
}

/**
 * Records subscriptions and their events (platform API), each with its outbox event in one database transaction. An
 * `id` sent by the caller makes the creation idempotent: the same id and data again answer the stored subscription.
 */
@Injectable()
export class SubscriptionService {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly subscriptions: SubscriptionRepository,
    private readonly references: ReferenceChecker,
  ) {}

  async create(input: CreateSubscriptionDto): Promise<RecordedSubscription> {
    const merchantId = input.merchantId.toLowerCase();
    const integrationId = input.integrationId?.toLowerCase() ?? null;
    await this.references.check(merchantId, integrationId);
    const now = new Date();
    const row: SubscriptionRow = {
      id: input.id?.toLowerCase() ?? randomUUID(),
      merchantId,
      integrationId,
      referenceId: input.referenceId ?? null,
      amount: input.amount,
      currency: input.currency,
      interval: input.interval,
      status: 'active',
      lastEvent: null,
      createdAt: now,
      updatedAt: now,
    };
    return this.unitOfWork.run(async ({ sql, emit }) => {
      if (!(await this.subscriptions.insert(sql, row))) {
        // As it is now: its status may have moved on since.
        const stored = await this.subscriptions.find(sql, row.id);
        if (!stored || !sameRequest(stored, row)) {
          throw new SubscriptionException(...idTaken('subscription', SubscriptionExceptionCode.IDEMPOTENCY_CONFLICT));
        }
        return { subscription: renderSubscription(toRecord(stored)), created: false };
      }
      await emit(event('subscription.created', row));
      return { subscription: renderSubscription(toRecord(row)), created: true };
    });
  }

  async recordEvent(id: string, input: SubscriptionEventDto): Promise<PublicSubscription> {
    return this.unitOfWork.run(async ({ sql, emit }) => {
      const current = await this.subscriptions.findForUpdate(sql, id);
      if (!current) {
        throw new SubscriptionException('No subscription has this id.', SubscriptionExceptionCode.NOT_FOUND);
      }
      if (isRepeatedStateEvent(current.status, input.event)) return renderSubscription(toRecord(current));
      const next = statusAfter(current.status, input.event);
      if (!next) {
        throw new SubscriptionException(
          `A subscription in status ${current.status} cannot be ${input.event}; allowed in: ${SUBSCRIPTION_EVENT_RULES[input.event].from.join(', ')}.`,
          SubscriptionExceptionCode.EVENT_FORBIDDEN,
        );
      }
      const updated = await this.subscriptions.recordEvent(sql, id, next, input.event, new Date());
      await emit(event(`subscription.${input.event}`, updated));
      return renderSubscription(toRecord(updated));
    });
  }
}

function toRecord(row: SubscriptionRow): SubscriptionRecord {
  return {
    id: row.id,
    status: row.status,
    event: row.lastEvent,
    referenceId: row.referenceId,
    amount: row.amount,
    currency: row.currency,
    interval: row.interval,
    integrationId: row.integrationId,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

function event(type: PlatformEventType, row: SubscriptionRow) {
  return platformEvent({
    type,
    merchantId: row.merchantId,
    integrationId: row.integrationId,
    subjectId: row.id,
    occurredAt: row.updatedAt,
    data: toRecord(row),
  });
}

const sameRequest = (stored: SubscriptionRow, asked: SubscriptionRow) =>
  stored.merchantId === asked.merchantId &&
  stored.integrationId === asked.integrationId &&
  stored.referenceId === asked.referenceId &&
  stored.amount === asked.amount &&
  stored.currency === asked.currency &&
  stored.interval === asked.interval;
