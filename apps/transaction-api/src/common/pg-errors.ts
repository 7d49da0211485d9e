import { isForeignKeyViolation } from '#persistence';
import { ProblemException } from '#platform';

/**
 * Maps a foreign-key violation (a merchant or integration that vanished between the reference check and the insert)
 * to the same 400 problem the check gives; rethrows anything else.
 */
export function rethrowReferenceViolation(error: unknown): never {
  if (isForeignKeyViolation(error)) {
    const field = (error as { constraint?: string }).constraint?.includes('integration')
      ? 'integrationId'
      : 'merchantId';
    throw ProblemException.validation([
      {
        field,
        message: field === 'merchantId' ? 'is not the id of a merchant' : 'is not an integration of this merchant',
      },
    ]);
  }
  throw error;
}
