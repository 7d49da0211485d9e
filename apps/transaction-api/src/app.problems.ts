import type { ProblemTable } from '#platform';
import { MERCHANT_PROBLEMS } from './merchant/merchant.problems.js';
import { PAYOUT_PROBLEMS } from './payout/payout.problems.js';
import { SUBSCRIPTION_PROBLEMS } from './subscription/subscription.problems.js';
import { TRANSACTION_PROBLEMS } from './transaction/transaction.problems.js';

/**
 * How transaction-api answers its features' DomainExceptions: every feature's problem table, given to createHttpApp.
 * A feature exception missing here would be a 500; app.problems.spec.ts fails on one.
 */
export const TRANSACTION_API_PROBLEMS: readonly ProblemTable[] = [
  MERCHANT_PROBLEMS,
  PAYOUT_PROBLEMS,
  SUBSCRIPTION_PROBLEMS,
  TRANSACTION_PROBLEMS,
];
