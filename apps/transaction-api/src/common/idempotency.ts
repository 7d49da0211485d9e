import type { EventKind } from '#domain';
import type { FieldError } from '#platform';

/**
 * The caller's id names an existing record whose creation data differ: a different record reusing an id (a bug in
 * the caller). Answering with the other record would hide it, so the request is refused and nothing changes. The
 * arguments of the feature's exception: `new PayoutException(...idTaken('payout', PayoutExceptionCode.…))`.
 */
export const idTaken = <Code extends string>(
  kind: EventKind,
  code: Code,
  field: 'uuid' | 'id' = 'id',
): [message: string, code: Code, errors: FieldError[]] => [
  `This ${field} was already used to record a ${kind} with different data.`,
  code,
  [{ field, message: `is already used by a different ${kind}` }],
];
