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
export type ExceptionClass<Code extends string = string> = abstract new (...args: any[]) => DomainException<Code>;

/** How a feature's exception codes are answered: a plain value, which its app gives to createHttpApp. */
export interface ProblemTable<Code extends string = string> {
  readonly exception: ExceptionClass<Code>;
  readonly answers: Readonly<Record<Code, ProblemShape>>;
}

/** A feature's problem table; every code of its exception needs an entry. */
export function problemTable<Code extends string>(
  exception: ExceptionClass<Code>,
  answers: Record<Code, ProblemShape>,
): ProblemTable<Code> {
  return { exception, answers };
}

/**
 * The problem tables of one app, as its createHttpApp was given them: nothing is registered by importing a file, so
 * what an app answers is the list it passes. A table given twice, or an answer that is no 4xx or 5xx, stops the start.
 */
export class ProblemTables {
  private readonly tables = new Map<ExceptionClass, Readonly<Record<string, ProblemShape>>>();

  constructor(tables: readonly ProblemTable[]) {
    for (const { exception, answers } of tables) {
      if (this.tables.has(exception)) throw new Error(`The problem table of ${exception.name} is given twice.`);
      for (const [code, shape] of Object.entries(answers)) {
        if (!Number.isInteger(shape.status) || shape.status < 400 || shape.status > 599)
          throw new Error(`The problem table of ${exception.name} answers ${code} with status ${shape.status}.`);
      }
      this.tables.set(exception, answers);
    }
  }

  /** Whether a table answers this exception class. */
  answers(exception: ExceptionClass): boolean {
    return this.tables.has(exception);
  }

  /** The problem answering `error`, or undefined when its class or code has no entry (answered as a bug). */
  problemOf(error: DomainException): Problem | undefined {
    const shape = this.tables.get(error.constructor as ExceptionClass)?.[error.code];
    if (!shape) return undefined;
    return problemFor(shape.status, shape.detail ?? error.message, {
      ...(shape.type === undefined ? {} : { type: shape.type }),
      ...(shape.title === undefined ? {} : { title: shape.title }),
      ...(error.errors === undefined ? {} : { errors: error.errors }),
    });
  }
}
