import type { WebhookSubject } from './webhook-version.js';

/**
 * What a delivery, and each of its log entries, shows of the subject of its event: `psp, type, uuid` of a
 * transaction; the id of a subscription, payout or webhook as `uuid`; the transaction's or subscription's `referenceId` (the
 * shop's order number, what a shop owner searches the log by), null when it has none. Deliveries recorded before the
 * referenceId was added have none (undefined).
 */
export interface DeliverySubject {
  psp?: string;
  type?: string;
  uuid: string;
  referenceId?: string | null;
}

/** The subject of an event as its delivery records it (the fan-out's events and the dispatcher's test events alike). */
export function deliverySubjectOf(subject: WebhookSubject): DeliverySubject {
  switch (subject.type) {
    case 'transaction': {
      const { psp, type, uuid, referenceId } = subject.transaction;
      return { psp, type, uuid, referenceId };
    }
    case 'subscription':
      return { uuid: subject.subscription.id, referenceId: subject.subscription.referenceId };
    case 'payout':
      return { uuid: subject.payout.id, referenceId: null };
    case 'webhook':
      return { uuid: subject.webhook.id, referenceId: null };
  }
}

/**
 * Attempts of one delivery that resends may add up to: far beyond the 11 automatic ones, and a bound on what the log
 * reads to number an entry (its place among its delivery's attempts).
 */
export const MAX_ATTEMPTS_PER_DELIVERY = 50;
