import { describe, expect, it } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { toProblem } from './problem.filter.js';

const quiet = new Logger('test');
quiet.warn = () => undefined;
quiet.error = () => undefined;
const failure = (fields: Record<string, unknown>) => Object.assign(new Error(String(fields.message ?? 'x')), fields);

describe('toProblem', () => {
  it('answers database trouble 503: a cancelled statement, a refused or lost connection, an exhausted pool', () => {
    for (const error of [
      failure({ code: '57014', message: 'canceling statement due to statement timeout' }),
      failure({ code: 'ECONNREFUSED', message: 'connect ECONNREFUSED 127.0.0.1:5432' }),
      new Error('Connection terminated unexpectedly'),
      new Error('timeout exceeded when trying to connect'),
    ]) {
      expect(toProblem(error, quiet)).toEqual({
        type: 'urn:problem:unavailable',
        title: 'Service unavailable',
        status: 503,
        detail: 'The database is unavailable or did not answer in time. Try again in a moment.',
      });
    }
  });

  it("keeps Fastify's own 4xx: a client that aborts mid-body (ECONNRESET) is no database outage", () => {
    const aborted = failure({ code: 'ECONNRESET', statusCode: 400, message: 'aborted' });
    expect(toProblem(aborted, quiet).status).toBe(400);
  });

  it('answers a protocol violation (a bug of ours, SQLSTATE 08P01) 500, logged', () => {
    const logged: string[] = [];
    const logger = new Logger('test');
    logger.error = (message: string) => void logged.push(message);
    expect(toProblem(failure({ code: '08P01', message: 'bind message supplies 1 parameters' }), logger).status).toBe(
      500,
    );
    expect(logged).toEqual([expect.stringContaining('bind message supplies 1 parameters')]);
  });
});
