import { randomUUID } from 'node:crypto';
import type { WebhookSubject } from '#domain';

/** What a test delivery stores: the subject rendered into its body, and what its log entries show of it. */
export interface SampleEvent {
  subject: WebhookSubject;
  eventType: WebhookSubject['type'];
  logSubject: { psp?: string; type?: string; uuid: string };
}

/**
 * The event a test delivery reports, of a kind the webhook receives: a transaction if it selected transactions (a
 * confirmed CHF 19.90 Visa payment with a 3-D Secure challenge), else a renewed monthly subscription, else a payout
 * — so a receiver built for payouts only is tested with a payout. Each is marked by `referenceId: "webhook-test"`
 * where the object has one, so receivers can recognise (and ignore) it.
 */
export function sampleEvent(events: readonly string[], integrationId: string | null, now = new Date()): SampleEvent {
  const id = randomUUID();
  if (events.includes('transaction') || (!events.includes('subscription') && !events.includes('payout'))) {
    return {
      eventType: 'transaction',
      logSubject: { psp: 'Payrexx Direct', type: 'e-commerce', uuid: id },
      subject: {
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
      },
    };
  }
  if (events.includes('subscription')) {
    return {
      eventType: 'subscription',
      logSubject: { uuid: id },
      subject: {
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
      },
    };
  }
  return {
    eventType: 'payout',
    logSubject: { uuid: id },
    // Payouts belong to no integration.
    subject: { type: 'payout', payout: { id, status: 'initialised', amount: 1990, currency: 'CHF', createdAt: now } },
  };
}
