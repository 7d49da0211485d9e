import type { SubscriptionEvent, SubscriptionStatus } from '#domain';

export { SUBSCRIPTION_STATUSES, type SubscriptionStatus } from '#domain';

/**
 * What each subscription event does. A new subscription is `active`.
 * - renewed: active | past_due → active
 * - payment_failed: active | past_due → past_due
 * - cancelled: active | past_due → cancelled (no more renewals; it still ends later)
 * - ended: active | past_due | cancelled → ended (final)
 * `cancelled` or `ended` again, on a subscription already in that state, changes nothing and emits nothing (a caller
 * retrying after a lost answer, as with a transaction's status). `renewed` and `payment_failed` again are new
 * events (another period, another failed charge). Any other event is refused with 409 (e.g. renewing a cancelled or
 * an ended subscription).
 */
export const SUBSCRIPTION_EVENT_RULES: Readonly<
  Record<SubscriptionEvent, { from: readonly SubscriptionStatus[]; to: SubscriptionStatus }>
> = {
  renewed: { from: ['active', 'past_due'], to: 'active' },
  payment_failed: { from: ['active', 'past_due'], to: 'past_due' },
  cancelled: { from: ['active', 'past_due'], to: 'cancelled' },
  ended: { from: ['active', 'past_due', 'cancelled'], to: 'ended' },
};

/** Whether `event` only repeats what made the subscription `status` (answered as done, without a new event). */
export function isRepeatedStateEvent(status: SubscriptionStatus, event: SubscriptionEvent): boolean {
  return (event === 'cancelled' || event === 'ended') && status === SUBSCRIPTION_EVENT_RULES[event].to;
}

/** The status after `event`, or undefined when the event is not allowed in `status`. */
export function statusAfter(status: SubscriptionStatus, event: SubscriptionEvent): SubscriptionStatus | undefined {
  const rule = SUBSCRIPTION_EVENT_RULES[event];
  return rule.from.includes(status) ? rule.to : undefined;
}
