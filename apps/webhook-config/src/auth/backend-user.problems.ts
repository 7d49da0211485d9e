import { problemTable, VALIDATION_PROBLEM } from '#platform';
import { BackendUserException, BackendUserExceptionCode } from './backend-user.exception.js';

/** How BackendUserException's codes are answered (given to createHttpApp through the app's problem list). */
export const BACKEND_USER_PROBLEMS = problemTable(BackendUserException, {
  [BackendUserExceptionCode.MERCHANT_NOT_FOUND]: { status: 404 },
  [BackendUserExceptionCode.PASSWORD_CONTAINS_EMAIL]: VALIDATION_PROBLEM,
  [BackendUserExceptionCode.EMAIL_TAKEN]: { status: 409 },
});
