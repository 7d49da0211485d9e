/** Records shared by the specs. */
import type { PayoutRecord, SubscriptionRecord, TransactionRecord } from '../src/record.shapes.js';

export const transactionRecord: TransactionRecord = {
  uuid: '0b8a6a3e-3f53-4d7e-9c1f-0d1f1c6a9e21',
  referenceId: 'order-4711',
  status: 'confirmed',
  psp: 'Payrexx Direct',
  type: 'e-commerce',
  paymentMethod: 'visa',
  amount: 1990,
  currency: 'CHF',
  integrationId: '6f1c1d34-0a3b-4bcb-9c43-2d7e0b8f4c10',
  createdAt: new Date('2026-11-22T10:00:00Z'),
  updatedAt: '2026-11-22T11:00:00+01:00',
  threeDSecure: { eci: '05', source: '3ds', version: '2.2.0', flow: 'challenge' },
};

export const subscriptionRecord: SubscriptionRecord = {
  id: '4c1f9f6e-8a0d-4c7b-a0f5-5f3f2a1b9c77',
  status: 'active',
  event: 'renewed',
  referenceId: 'abo-17',
  amount: 4900,
  currency: 'EUR',
  interval: 'P1M',
  integrationId: null,
  createdAt: '2026-01-01T08:00:00.000Z',
  updatedAt: new Date('2026-11-01T08:00:00.123Z'),
};

export const payoutRecord: PayoutRecord = {
  id: '9e0c3c8e-1d2b-4f5a-8e6d-7c4b3a2f1e0d',
  status: 'initialised',
  amount: 125000,
  currency: 'CHF',
  createdAt: new Date('2026-11-22T23:59:59.999Z'),
};
