import { createHash } from 'node:crypto';
import type { ThreeDSecure } from '#domain';

/** What identifies a creation request for idempotency: the normalised body, without uuid and raw authentication. */
export interface CreationFacts {
  merchantId: string;
  integrationId: string | null;
  referenceId: string | null;
  status: string;
  psp: string;
  type: string;
  paymentMethod: string;
  amount: number;
  currency: string;
  /** The createdAt sent for an import, or null when the service chose the time. */
  createdAt: string | null;
  threeDSecure: ThreeDSecure | null;
}

/**
 * SHA-256 over the facts in a fixed key order. Stored with the transaction so that a retry with the same uuid can be
 * told apart from a different transaction reusing it. The raw authentication is not an input: only its resolved,
 * public form is, so nothing derived from the cryptogram or the 3-D Secure ids is kept.
 */
export function creationFingerprint(facts: CreationFacts): Buffer {
  const ordered = [
    facts.merchantId,
    facts.integrationId,
    facts.referenceId,
    facts.status,
    facts.psp,
    facts.type,
    facts.paymentMethod,
    facts.amount,
    facts.currency,
    facts.createdAt,
    facts.threeDSecure && [
      facts.threeDSecure.eci,
      facts.threeDSecure.source,
      facts.threeDSecure.version,
      facts.threeDSecure.flow,
    ],
  ];
  return createHash('sha256').update(JSON.stringify(ordered)).digest();
}
