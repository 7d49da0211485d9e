import { registerProblems } from '#platform';
import { PayoutException, PayoutExceptionCode } from './payout.exception.js';

registerProblems(PayoutException, {
  [PayoutExceptionCode.IDEMPOTENCY_CONFLICT]: { status: 409 },
});
