import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { ProblemTables } from '#platform';
import { decodeCursor, encodeCursor, TRANSACTION_ORDERS } from './transaction.cursor.js';
import { TransactionException } from './transaction.exception.js';
import { TRANSACTION_PROBLEMS } from './transaction.problems.js';

const problems = new ProblemTables([TRANSACTION_PROBLEMS]);

const problemOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    if (error instanceof TransactionException) return problems.problemOf(error);
    throw error;
  }
  return undefined;
};
const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const UUID = '00000000-0000-4000-8000-000000000000';

describe('transaction cursor', () => {
  it('round-trips a position to the millisecond, in either order', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...TRANSACTION_ORDERS),
        fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true }),
        fc.uuid(),
        (order, at, uuid) => {
          const decoded = decodeCursor(encodeCursor(order, { at, uuid }), order);
          expect(decoded.at.getTime()).toBe(at.getTime());
          expect(decoded.uuid).toBe(uuid.toLowerCase());
        },
      ),
    );
  });

  it('refuses a cursor of one order in the other, saying which order it belongs to', () => {
    const at = new Date('2026-01-01T00:00:00Z');
    const updated = encodeCursor('updatedAt', { at, uuid: UUID });
    const created = encodeCursor('-createdAt', { at, uuid: UUID });
    expect(updated).not.toBe(created);
    expect(problemOf(() => decodeCursor(updated, '-createdAt'))).toMatchObject({
      status: 400,
      errors: [{ field: 'cursor', message: 'was returned for order=updatedAt; send it with that order' }],
    });
    expect(problemOf(() => decodeCursor(created, 'updatedAt'))).toMatchObject({
      status: 400,
      errors: [{ field: 'cursor', message: 'was returned for order=-createdAt; send it with that order' }],
    });
  });

  it('still reads the newest-first cursors handed out before there was a second order', () => {
    expect(decodeCursor(encode([1_767_225_600_000, UUID]), '-createdAt')).toEqual({
      at: new Date('2026-01-01T00:00:00Z'),
      uuid: UUID,
    });
  });

  it('answers any other string with a 400 problem naming cursor, never another error', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...TRANSACTION_ORDERS),
        fc.oneof(
          fc.string(),
          fc.base64String(),
          fc.json().map((json) => Buffer.from(json).toString('base64url')),
          fc.tuple(fc.integer(), fc.uuid(), fc.oneof(fc.string(), fc.constantFrom(...TRANSACTION_ORDERS))).map(encode),
        ),
        (order, text) => {
          let decoded: unknown;
          const problem = problemOf(() => (decoded = decodeCursor(text, order)));
          if (problem) {
            expect(problem.status).toBe(400);
            expect(problem.errors).toEqual([{ field: 'cursor', message: expect.any(String) }]);
          } else {
            expect(decoded).toEqual({ at: expect.any(Date), uuid: expect.any(String) });
          }
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('refuses positions that are out of range or not ours', () => {
    for (const bad of [
      encode([1.5, UUID]),
      encode([-1, UUID]),
      encode([0, 'x']),
      encode([0, UUID, 'createdAt']),
      encode([0, UUID, null]),
      encode([0, UUID, 'updatedAt', 1]),
      encode([0]),
      encode({}),
      'a'.repeat(201),
      '!!',
    ]) {
      for (const order of TRANSACTION_ORDERS) {
        expect([bad, problemOf(() => decodeCursor(bad, order))?.errors]).toEqual([
          bad,
          [{ field: 'cursor', message: 'is not a cursor returned by this API' }],
        ]);
      }
    }
  });
});
