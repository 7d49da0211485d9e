import { problemTable, VALIDATION_PROBLEM } from '#platform';
import { TransactionException, TransactionExceptionCode } from './transaction.exception.js';

/** How TransactionException's codes are answered (given to createHttpApp through the app's problem list). */
export const TRANSACTION_PROBLEMS = problemTable(TransactionException, {
  [TransactionExceptionCode.NOT_FOUND]: { status: 404 },
  [TransactionExceptionCode.IDEMPOTENCY_CONFLICT]: { status: 409 },
  [TransactionExceptionCode.CREATED_AT_IN_FUTURE]: VALIDATION_PROBLEM,
  [TransactionExceptionCode.STATUS_TRANSITION_FORBIDDEN]: {
    status: 409,
    type: 'urn:problem:status-transition',
    title: 'Status change not allowed',
  },
  [TransactionExceptionCode.CONCURRENT_STATUS_CHANGE]: { status: 409 },
  [TransactionExceptionCode.INVALID_CURSOR]: VALIDATION_PROBLEM,
});
