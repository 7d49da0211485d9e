import { registerProblems, VALIDATION_PROBLEM } from '#platform';
import { BackendUserException, BackendUserExceptionCode } from './backend-user.exception.js';

registerProblems(BackendUserException, {
  [BackendUserExceptionCode.MERCHANT_NOT_FOUND]: { status: 404 },
  [BackendUserExceptionCode.PASSWORD_CONTAINS_EMAIL]: VALIDATION_PROBLEM,
  [BackendUserExceptionCode.EMAIL_TAKEN]: { status: 409 },
});
