/**
 * Records shared by the specs: the domain's sample events (event-samples.ts), with their times given in the other
 * forms a record may carry them (a Date, an ISO string with an offset), which the renderers must write the same.
 */
import { SAMPLE_SUBJECTS } from '../src/event-samples.js';
import type { PayoutRecord, SubscriptionRecord, TransactionRecord, WebhookRecord } from '../src/record.shapes.js';

export const transactionRecord: TransactionRecord = {
  ...SAMPLE_SUBJECTS.transaction.transaction,
  createdAt: new Date('2026-11-22T10:00:00Z'),
  updatedAt: '2026-11-22T11:00:00+01:00',
};

export const subscriptionRecord: SubscriptionRecord = {
  ...SAMPLE_SUBJECTS.subscription.subscription,
  updatedAt: new Date('2026-11-01T08:00:00.123Z'),
};

export const payoutRecord: PayoutRecord = {
  ...SAMPLE_SUBJECTS.payout.payout,
  createdAt: new Date('2026-11-22T23:59:59.999Z'),
};

/** An operational event's webhook: disabled for failing (the sample), with a Date as the driver gives it. */
export const webhookRecord: WebhookRecord = {
  ...SAMPLE_SUBJECTS.webhook.webhook,
  occurredAt: new Date('2026-11-22T08:15:02.000Z'),
};
