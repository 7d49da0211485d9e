import { problemTable } from '#platform';
import { SubscriptionException, SubscriptionExceptionCode } from './subscription.exception.js';

/** How SubscriptionException's codes are answered (given to createHttpApp through the app's problem list). */
export const SUBSCRIPTION_PROBLEMS = problemTable(SubscriptionException, {
  [SubscriptionExceptionCode.NOT_FOUND]: { status: 404 },
  [SubscriptionExceptionCode.IDEMPOTENCY_CONFLICT]: { status: 409 },
  [SubscriptionExceptionCode.EVENT_FORBIDDEN]: {
    status: 409,
    type: 'urn:problem:subscription-event',
    title: 'Subscription event not allowed',
  },
});
