import { problemTable } from '#platform';
import { CliSessionException, CliSessionExceptionCode } from './cli-session.exception.js';

const UNAUTHORIZED = { status: 401, type: 'urn:problem:api-key', title: 'API key not accepted' } as const;

/** How CliSessionException's codes are answered (given to createHttpApp through the app's problem list). */
export const CLI_SESSION_PROBLEMS = problemTable(CliSessionException, {
  [CliSessionExceptionCode.API_KEY_MISSING]: UNAUTHORIZED,
  [CliSessionExceptionCode.API_KEY_MALFORMED]: UNAUTHORIZED,
  [CliSessionExceptionCode.API_KEY_UNKNOWN]: UNAUTHORIZED,
  [CliSessionExceptionCode.SESSION_NOT_FOUND]: { status: 404 },
  [CliSessionExceptionCode.TOO_MANY_SESSIONS]: {
    status: 429,
    type: 'urn:problem:too-many-cli-sessions',
    title: 'Too many listening sessions',
  },
  [CliSessionExceptionCode.NOT_QUEUED]: { status: 503 },
});
