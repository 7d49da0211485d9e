import { ParseUUIDPipe } from '@nestjs/common';
import { ProblemException } from '#platform';

/**
 * Parses a path id. A malformed id answers 404 like an unknown one (and like another merchant's), so ids reveal
 * nothing about what exists.
 */
export function resourceId(what: string): ParseUUIDPipe {
  return new ParseUUIDPipe({ exceptionFactory: () => new ProblemException(404, `There is no ${what} with this id.`) });
}
