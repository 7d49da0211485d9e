import { problemTable, VALIDATION_PROBLEM } from '#platform';
import { MerchantException, MerchantExceptionCode } from './merchant.exception.js';

/** How MerchantException's codes are answered (given to createHttpApp through the app's problem list). */
export const MERCHANT_PROBLEMS = problemTable(MerchantException, {
  [MerchantExceptionCode.NOT_FOUND]: { status: 404 },
  [MerchantExceptionCode.UNKNOWN_MERCHANT]: VALIDATION_PROBLEM,
  [MerchantExceptionCode.FOREIGN_INTEGRATION]: VALIDATION_PROBLEM,
});
