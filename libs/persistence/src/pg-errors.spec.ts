import { describe, expect, it } from '@jest/globals';
import { QueryRunnerProviderAlreadyReleasedError } from 'typeorm';
import { isForeignKeyViolation, isTransientDatabaseError } from './pg-errors.js';

const pgError = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('isTransientDatabaseError', () => {
  it.each([
    ['PostgreSQL shutting down', pgError('57P01', 'terminating connection due to administrator command')],
    ['PostgreSQL starting', pgError('57P03', 'the database system is starting up')],
    ['too many connections', pgError('53300')],
    ['a database not accepting connections', pgError('55000', 'database "x" is not currently accepting connections')],
    ['a connection failure', pgError('08006')],
    ['a read-only server during a failover', pgError('25006')],
    ['a deadlock', pgError('40P01')],
    [
      'a statement cancelled by the statement timeout',
      pgError('57014', 'canceling statement due to statement timeout'),
    ],
    ['a refused socket', pgError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432')],
    ['a lost connection', new Error('Connection terminated unexpectedly')],
    ['no connection from the pool in time', new Error('timeout exceeded when trying to connect')],
    ["a transaction's next statement after its connection was cut", new QueryRunnerProviderAlreadyReleasedError()],
  ])('repeats %s', (_what, error) => {
    expect(isTransientDatabaseError(error)).toBe(true);
  });

  it.each([
    ['a foreign-key violation', pgError('23503')],
    ['bad data', pgError('22P02')],
    ['an error in the statement', pgError('42703')],
    ['an internal error', pgError('XX000')],
    ['a protocol violation (a bug: e.g. the wrong number of parameters)', pgError('08P01')],
    ['a bug in our code', new TypeError("Cannot read properties of undefined (reading 'id')")],
    ['a pool that was ended', new Error('Cannot use a pool after calling end on the pool')],
    ['not an error at all', undefined],
  ])('does not repeat %s', (_what, error) => {
    expect(isTransientDatabaseError(error)).toBe(false);
  });
});

describe('isForeignKeyViolation', () => {
  it('recognises 23503 only', () => {
    expect(isForeignKeyViolation(pgError('23503'))).toBe(true);
    expect([pgError('23505'), new Error('23503'), undefined].map(isForeignKeyViolation)).toEqual([false, false, false]);
  });
});
