import { ProblemException } from '#platform';

/**
 * The caller's id names an existing record whose creation data differ: a different record reusing an id (a bug in
 * the caller). Answering with the other record would hide it, so the request is refused and nothing changes.
 */
export const idTaken = (kind: 'transaction' | 'payout' | 'subscription', field: 'uuid' | 'id' = 'id') =>
  new ProblemException(409, `This ${field} was already used to record a ${kind} with different data.`, {
    errors: [{ field, message: `is already used by a different ${kind}` }],
  });
