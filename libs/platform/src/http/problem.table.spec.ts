import { describe, expect, it } from '@jest/globals';
import { DomainException } from '../errors/domain.exception.js';
import { problemTable, ProblemTables } from './problem.table.js';

enum Code {
  GONE = 'GONE',
}
class ThingException extends DomainException<Code> {}
class OtherException extends DomainException<Code> {}

describe('ProblemTables', () => {
  it('answers only the exceptions whose tables it was given', () => {
    const tables = new ProblemTables([problemTable(ThingException, { [Code.GONE]: { status: 404 } })]);
    expect(tables.answers(ThingException)).toBe(true);
    expect(tables.answers(OtherException)).toBe(false);
    expect(tables.problemOf(new ThingException('No such thing.', Code.GONE))?.status).toBe(404);
    expect(tables.problemOf(new OtherException('No such thing.', Code.GONE))).toBeUndefined();
  });

  it('stops the start on a table given twice', () => {
    const table = problemTable(ThingException, { [Code.GONE]: { status: 404 } });
    expect(() => new ProblemTables([table, table])).toThrow('The problem table of ThingException is given twice.');
  });

  it('stops the start on an answer that is no 4xx or 5xx', () => {
    const table = problemTable(ThingException, { [Code.GONE]: { status: 200 } });
    expect(() => new ProblemTables([table])).toThrow(
      'The problem table of ThingException answers GONE with status 200.',
    );
  });
});
