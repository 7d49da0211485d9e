import { DomainException, ProblemTables, type ProblemTable } from '#platform';
import { exportedSubclassesOf } from './source-classes.js';

/**
 * The names of the feature exceptions (exported from a `*.exception.ts` under `dir`) that none of `tables` answers:
 * each would be a 500 at run time. An app's spec expects none.
 */
export async function unansweredExceptions(tables: readonly ProblemTable[], dir: string): Promise<string[]> {
  const answered = new ProblemTables(tables);
  const exceptions = await exportedSubclassesOf(DomainException, dir, '.exception.ts');
  return exceptions.filter((exception) => !answered.answers(exception)).map((exception) => exception.name);
}
