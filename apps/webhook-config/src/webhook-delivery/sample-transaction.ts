import { randomUUID } from 'node:crypto';
import type { TransactionRecord } from '#domain';

/**
 * The transaction a test delivery reports: a confirmed CHF 19.90 Visa payment with a 3-D Secure challenge,
 * marked by its referenceId so receivers can recognise (and ignore) it.
 */
export function sampleTransaction(integrationId: string | null, now = new Date()): TransactionRecord {
  return {
    uuid: randomUUID(),
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
  };
}
