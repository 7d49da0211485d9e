import { apiProblemsWith } from '#platform';

export { FieldErrorDoc, ProblemDoc } from '#platform';

const DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid input: malformed JSON, a wrong type, an unknown field, an out-of-range value, a bad cursor. `errors` names each field.',
  401: 'Missing or invalid credentials.',
  404: 'Not found (also: an unknown API version, or a transaction of another merchant).',
  409: 'Conflict with the current state (see the endpoint).',
  413: 'The request body is larger than 64 KiB.',
  415: 'The request body is not `application/json`.',
  429:
    'Over the rate limit: `API_RATE_LIMIT` requests per second per API key (or wrong keys per client address). ' +
    '`Retry-After` says when to try again.',
  503:
    'The service is shutting down, or the database is unavailable or did not answer within ' +
    '`DATABASE_STATEMENT_TIMEOUT` (10 s by default); ' +
    '`Retry-After` says when to try again. A write it interrupted was recorded in full or not at all. Repeating is ' +
    'safe where the API is idempotent — recording a transaction with its `uuid`, a payout or subscription with its ' +
    '`id`, a status change, a subscription `cancelled`/`ended` — elsewhere (merchants, integrations, `renewed`, ' +
    '`payment_failed`, a creation without its key) check first whether it was recorded.',
};

/** Documents the problem responses of an operation; `overrides` replaces the standard description of a status. */
export const ApiProblems = apiProblemsWith(DESCRIPTIONS);
