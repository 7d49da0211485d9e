import { apiProblemsWith } from '#platform';

const DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid input: a wrong type, an unknown field, an out-of-range value, a bad cursor. `errors` names each field.',
  401: 'Missing or invalid credentials.',
  403: 'The `X-CSRF-Token` header is missing or does not match the session.',
  404: "Not found: no such id among the signed-in merchant's (another merchant's ids and malformed ids answer alike).",
  409: 'Conflict with the current state (see the endpoint).',
  413: 'The request body is larger than 256 KiB.',
  415: 'The request body is not `application/json`.',
  503:
    'The service is shutting down, or the database is unavailable or did not answer within ' +
    '`DATABASE_STATEMENT_TIMEOUT` (10 s by default); `Retry-After` says when to try again.',
};

/** Documents the problem responses of an operation; `overrides` replaces the standard description of a status. */
export const ApiProblems = apiProblemsWith(DESCRIPTIONS);
