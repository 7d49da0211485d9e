import { describe, expect, it } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { DomainException } from '../errors/domain.exception.js';
import { toProblem } from './problem.filter.js';
import { problemTable, ProblemTables, VALIDATION_PROBLEM } from './problem.table.js';

const quiet = new Logger('test');
quiet.warn = () => undefined;
quiet.error = () => undefined;
const none = new ProblemTables([]);
const failure = (fields: Record<string, unknown>) => Object.assign(new Error(String(fields.message ?? 'x')), fields);

describe('toProblem', () => {
  it('answers database trouble 503: a cancelled statement, a refused or lost connection, an exhausted pool', () => {
    for (const error of [
      failure({ code: '57014', message: 'canceling statement due to statement timeout' }),
      failure({ code: 'ECONNREFUSED', message: 'connect ECONNREFUSED 127.0.0.1:5432' }),
      new Error('Connection terminated unexpectedly'),
      new Error('timeout exceeded when trying to connect'),
    ]) {
      expect(toProblem(error, quiet, none)).toEqual({
        type: 'urn:problem:unavailable',
        title: 'Service unavailable',
        status: 503,
        detail: 'The database is unavailable or did not answer in time. Try again in a moment.',
      });
    }
  });

  it("keeps Fastify's own 4xx: a client that aborts mid-body (ECONNRESET) is no database outage", () => {
    const aborted = failure({ code: 'ECONNRESET', statusCode: 400, message: 'aborted' });
    expect(toProblem(aborted, quiet, none).status).toBe(400);
  });

  it('answers a protocol violation (a bug of ours, SQLSTATE 08P01) 500, logged', () => {
    const logged: string[] = [];
    const logger = new Logger('test');
    logger.error = (message: string) => void logged.push(message);
    expect(
      toProblem(failure({ code: '08P01', message: 'bind message supplies 1 parameters' }), logger, none).status,
    ).toBe(500);
    expect(logged).toEqual([expect.stringContaining('bind message supplies 1 parameters')]);
  });

  it("answers a DomainException through its feature's table, and one of a class the app gave no table 500, logged", () => {
    enum Code {
      TAKEN = 'TAKEN',
      BAD_NAME = 'BAD_NAME',
    }
    class ThingException extends DomainException<Code> {}
    class OtherException extends DomainException<Code> {}
    const problems = new ProblemTables([
      problemTable(ThingException, {
        [Code.TAKEN]: { status: 409, type: 'urn:problem:thing-taken', title: 'Thing taken' },
        [Code.BAD_NAME]: VALIDATION_PROBLEM,
      }),
    ]);

    expect(toProblem(new ThingException('This thing is taken.', Code.TAKEN), quiet, problems)).toEqual({
      type: 'urn:problem:thing-taken',
      title: 'Thing taken',
      status: 409,
      detail: 'This thing is taken.',
    });
    const errors = [{ field: 'name', message: 'must not be empty' }];
    expect(toProblem(new ThingException('name must not be empty.', Code.BAD_NAME, errors), quiet, problems)).toEqual({
      type: 'urn:problem:validation',
      title: 'Invalid request',
      status: 400,
      detail: 'The request has invalid fields.',
      errors,
    });

    const logged: string[] = [];
    const logger = new Logger('test');
    logger.error = (message: string) => void logged.push(message);
    expect(toProblem(new OtherException('Taken elsewhere.', Code.TAKEN), logger, problems).status).toBe(500);
    expect(logged).toEqual([expect.stringContaining('OtherException: Taken elsewhere.')]);
  });
});
