import { randomUUID } from 'node:crypto';
import { EVENT_KINDS, sampleSubjectOf, type WebhookSubject } from '#domain';

/**
 * The event a test delivery reports: the domain's sample (SAMPLE_SUBJECTS) of the first kind the webhook selected in
 * the order of EVENT_KINDS — a confirmed CHF 19.90 Visa payment with a 3-D Secure challenge, else a renewed
 * subscription, else a payout, so a receiver built for payouts only is tested with a payout — with an id of its own,
 * now as its time, the webhook's integration, and `referenceId: "webhook-test"` where the object has one, so
 * receivers can recognise (and ignore) it.
 */
export function sampleSubject(
  events: readonly string[],
  integrationId: string | null,
  now = new Date(),
): WebhookSubject {
  const kind = EVENT_KINDS.find((k) => events.includes(k)) ?? EVENT_KINDS[0];
  return sampleSubjectOf(kind, { id: randomUUID(), at: now, integrationId, referenceId: 'webhook-test' });
}
