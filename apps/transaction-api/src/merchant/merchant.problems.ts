import { registerProblems, VALIDATION_PROBLEM } from '#platform';
import { MerchantException, MerchantExceptionCode } from './merchant.exception.js';

registerProblems(MerchantException, {
  [MerchantExceptionCode.NOT_FOUND]: { status: 404 },
  [MerchantExceptionCode.UNKNOWN_MERCHANT]: VALIDATION_PROBLEM,
  [MerchantExceptionCode.FOREIGN_INTEGRATION]: VALIDATION_PROBLEM,
});
