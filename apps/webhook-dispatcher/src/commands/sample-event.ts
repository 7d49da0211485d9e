import { randomUUID } from 'node:crypto';
import type { WebhookSubject } from '#domain';

/**
 * The event a test delivery reports, of the first kind the webhook selected: a transaction (a confirmed CHF 19.90
 * Visa payment with a 3-D Secure challenge), else a renewed monthly subscription, else a payout — so a receiver built
 * for payouts only is tested with a payout. Each is marked by `referenceId: "webhook-test"` where the object has one,
 * so receivers can recognise (and ignore) it.
 */
export function sampleSubject(
  events: readonly string[],
  integrationId: string | null,
  now = new Date(),
): WebhookSubject {
  const id = randomUUID();
  const kind = (['transaction', 'subscription', 'payout'] as const).find((k) => events.includes(k)) ?? 'transaction';
  switch (kind) {
    case 'transaction':
      return {
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
      };
    case 'subscription':
      return {
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
      };
    case 'payout':
      // Payouts belong to no integration.
      return { type: 'payout', payout: { id, status: 'initialised', amount: 1990, currency: 'CHF', createdAt: now } };
  }
}
