import type { EventKind, PlatformEventType } from './event-kinds.js';
import type { WebhookSubject } from './webhook-version.js';

/** The subject of an event of kind `K`. */
export type SubjectOf<K extends EventKind> = Extract<WebhookSubject, { type: K }>;

/**
 * One sample event of each kind, defined once: a confirmed CHF 19.90 Visa payment with a 3-D Secure challenge, a
 * renewed subscription, a payout, a webhook disabled for failing. The OpenAPI documents' payload examples render them as they are; the backend's
 * "Send test" (the dispatcher's sample events), the test fixtures and the benchmarks start from them with ids and
 * times of their own ({@link sampleSubjectOf}). A kind without a sample fails to compile.
 */
export const SAMPLE_SUBJECTS: { readonly [K in EventKind]: SubjectOf<K> } = {
  transaction: {
    type: 'transaction',
    transaction: {
      uuid: '0b8a6a3e-3f53-4d7e-9c1f-0d1f1c6a9e21',
      referenceId: 'order-4711',
      status: 'confirmed',
      psp: 'Payrexx Direct',
      type: 'e-commerce',
      paymentMethod: 'visa',
      amount: 1990,
      currency: 'CHF',
      integrationId: '6f1c1d34-0a3b-4bcb-9c43-2d7e0b8f4c10',
      createdAt: '2026-11-22T10:00:00.000Z',
      updatedAt: '2026-11-22T10:00:04.250Z',
      threeDSecure: { eci: '05', source: '3ds', version: '2.2.0', flow: 'challenge' },
    },
  },
  subscription: {
    type: 'subscription',
    subscription: {
      id: '4c1f9f6e-8a0d-4c7b-a0f5-5f3f2a1b9c77',
      status: 'active',
      event: 'renewed',
      referenceId: 'abo-17',
      amount: 4900,
      currency: 'EUR',
      interval: 'P1M',
      integrationId: null,
      createdAt: '2026-01-01T08:00:00.000Z',
      updatedAt: '2026-11-01T08:00:00.123Z',
    },
  },
  payout: {
    type: 'payout',
    payout: {
      id: '9e0c3c8e-1d2b-4f5a-8e6d-7c4b3a2f1e0d',
      status: 'initialised',
      amount: 125000,
      currency: 'CHF',
      createdAt: '2026-11-22T23:59:59.999Z',
    },
  },
  webhook: {
    type: 'webhook',
    webhook: {
      id: '2d7c4e1a-5b3f-4a8e-9d60-1f2e3a4b5c6d',
      name: 'Shop orders',
      url: 'https://shop.example.com/webhooks/payments',
      state: 'disabled',
      disabledReason: 'failing',
      failingSince: '2026-11-19T08:15:00.000Z',
      lastSuccessAt: '2026-11-19T08:14:58.310Z',
      count: null,
      occurredAt: '2026-11-22T08:15:02.000Z',
    },
  },
};

/** An event made from a sample: its id, its time, and where its kind has them, its integration and reference. */
export interface SampleEvent {
  id: string;
  at: Date | string;
  integrationId?: string | null;
  referenceId?: string;
}

const AS_EVENT: { readonly [K in EventKind]: (event: SampleEvent) => SubjectOf<K> } = {
  transaction: ({ id, at, integrationId, referenceId }) => {
    const sample = SAMPLE_SUBJECTS.transaction.transaction;
    return {
      type: 'transaction',
      transaction: {
        ...sample,
        uuid: id,
        createdAt: at,
        updatedAt: at,
        integrationId: integrationId === undefined ? sample.integrationId : integrationId,
        referenceId: referenceId ?? sample.referenceId,
      },
    };
  },
  subscription: ({ id, at, integrationId, referenceId }) => {
    const sample = SAMPLE_SUBJECTS.subscription.subscription;
    return {
      type: 'subscription',
      subscription: {
        ...sample,
        id,
        createdAt: at,
        updatedAt: at,
        integrationId: integrationId === undefined ? sample.integrationId : integrationId,
        referenceId: referenceId ?? sample.referenceId,
      },
    };
  },
  // Payouts belong to no integration and carry no reference.
  payout: ({ id, at }) => ({ type: 'payout', payout: { ...SAMPLE_SUBJECTS.payout.payout, id, createdAt: at } }),
  // The event about a webhook carries no reference; its integration is the event's, not the record's.
  webhook: ({ id, at }) => ({ type: 'webhook', webhook: { ...SAMPLE_SUBJECTS.webhook.webhook, id, occurredAt: at } }),
};

/** The sample of `kind` as an event of its own: its id, its times, its integration and reference where it has them. */
export function sampleSubjectOf<K extends EventKind>(kind: K, event: SampleEvent): SubjectOf<K> {
  return AS_EVENT[kind](event);
}

/** The event type each kind's sample is sent as where one is needed (`payments trigger`): what the sample shows. */
export const SAMPLE_EVENT_TYPES: { readonly [K in EventKind]: Extract<PlatformEventType, `${K}.${string}`> } = {
  transaction: 'transaction.created',
  subscription: 'subscription.renewed',
  payout: 'payout.created',
  webhook: 'webhook.disabled',
};
