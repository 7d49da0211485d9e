import { randomUUID } from 'node:crypto';
import { EVENT_KINDS, type EventKind, type WebhookSubject } from '#domain';

/** The sample of each kind of event (a kind without one fails to compile). */
const SAMPLES: {
  readonly [K in EventKind]: (
    id: string,
    integrationId: string | null,
    now: Date,
  ) => Extract<WebhookSubject, { type: K }>;
} = {
  transaction: (id, integrationId, now) => ({
    type: 'transaction',
    transaction: {
      uuid: id,
      referenceId: 'webhook-test',
      status: 'confirmed',
      psp: 'Payrexx Direct',
      type: 'e-commerce',
      paymentMethod: 'visa',
      amount: 1990,
      currency: 'CHF',
      integrationId,
      createdAt: now,
      updatedAt: now,
      threeDSecure: { eci: '05', source: '3ds', version: '2.2.0', flow: 'challenge' },
    },
  }),
  subscription: (id, integrationId, now) => ({
    type: 'subscription',
    subscription: {
      id,
      status: 'active',
      event: 'renewed',
      referenceId: 'webhook-test',
      amount: 1990,
      currency: 'CHF',
      interval: 'monthly',
      integrationId,
      createdAt: now,
      updatedAt: now,
    },
  }),
  // Payouts belong to no integration.
  payout: (id, _integrationId, now) => ({
    type: 'payout',
    payout: { id, status: 'initialised', amount: 1990, currency: 'CHF', createdAt: now },
  }),
};

/**
 * The event a test delivery reports, of the first kind the webhook selected in the order of EVENT_KINDS: a transaction
 * (a confirmed CHF 19.90 Visa payment with a 3-D Secure challenge), else a renewed monthly subscription, else a payout
 * — so a receiver built for payouts only is tested with a payout. Each is marked by `referenceId: "webhook-test"` where the object has one,
 * so receivers can recognise (and ignore) it.
 */
export function sampleSubject(
  events: readonly string[],
  integrationId: string | null,
  now = new Date(),
): WebhookSubject {
  const kind = EVENT_KINDS.find((k) => events.includes(k)) ?? EVENT_KINDS[0];
  return SAMPLES[kind](randomUUID(), integrationId, now);
}
