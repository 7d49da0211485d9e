import { problemTable } from '#platform';
import { PayoutException, PayoutExceptionCode } from './payout.exception.js';

/** How PayoutException's codes are answered (given to createHttpApp through the app's problem list). */
export const PAYOUT_PROBLEMS = problemTable(PayoutException, {
  [PayoutExceptionCode.IDEMPOTENCY_CONFLICT]: { status: 409 },
});
