import { describe, expect, it } from '@jest/globals';
import { creationFingerprint, type CreationFacts } from './transaction.fingerprint.js';

const facts: CreationFacts = {
  merchantId: 'm',
  integrationId: null,
  referenceId: 'r',
  status: 'waiting',
  psp: 'Payrexx Direct',
  type: 'e-commerce',
  paymentMethod: 'visa',
  amount: 1990,
  currency: 'CHF',
  createdAt: null,
  threeDSecure: { eci: '05', source: '3ds', version: '2.2.0', flow: 'challenge' },
};

describe('creation fingerprint', () => {
  it('is the same for the same facts and differs when any fact differs', () => {
    expect(creationFingerprint({ ...facts }).equals(creationFingerprint(facts))).toBe(true);
    const variants: Partial<CreationFacts>[] = [
      { merchantId: 'n' },
      { integrationId: 'i' },
      { referenceId: null },
      { status: 'confirmed' },
      { psp: 'x' },
      { type: 'pos' },
      { paymentMethod: 'amex' },
      { amount: 1991 },
      { currency: 'EUR' },
      { createdAt: '2026-01-01T00:00:00.000Z' },
      { threeDSecure: null },
      { threeDSecure: { eci: '05', source: '3ds', version: '2.2.0', flow: 'frictionless' } },
    ];
    const seen = new Set([creationFingerprint(facts).toString('hex')]);
    for (const variant of variants) seen.add(creationFingerprint({ ...facts, ...variant }).toString('hex'));
    expect(seen.size).toBe(variants.length + 1);
  });
});
