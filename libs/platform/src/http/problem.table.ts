import type { DomainException } from '../errors/domain.exception.js';
import { problemFor, problemType, type Problem } from './problem.js';

/** How one exception code is answered: `type` and `title` default to the status's; `detail` to the message. */
export interface ProblemShape {
  status: number;
  type?: string;
  title?: string;
  detail?: string;
}

/** Invalid input fields, listed in `errors`. */
export const VALIDATION_PROBLEM: ProblemShape = {
  status: 400,
  type: problemType('validation'),
  title: 'Invalid request',
  detail: 'The request has invalid fields.',
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type ExceptionClass<Code extends string> = abstract new (...args: any[]) => DomainException<Code>;

const tables = new Map<ExceptionClass<string>, Record<string, ProblemShape>>();

/** Registers how a feature's exception codes are answered; every code needs an entry. */
export function registerProblems<Code extends string>(
  exception: ExceptionClass<Code>,
  table: Record<Code, ProblemShape>,
): void {
  tables.set(exception, table);
}

/** The problem answering `error`, or undefined when its class or code has no entry (answered as a bug). */
export function problemOfDomainException(error: DomainException): Problem | undefined {
  const shape = tables.get(error.constructor as ExceptionClass<string>)?.[error.code];
  if (!shape) return undefined;
  return problemFor(shape.status, shape.detail ?? error.message, {
    ...(shape.type === undefined ? {} : { type: shape.type }),
    ...(shape.title === undefined ? {} : { title: shape.title }),
    ...(error.errors === undefined ? {} : { errors: error.errors }),
  });
}
