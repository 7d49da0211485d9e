import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { ProblemException } from '#platform';
import { decodeCursor, encodeCursor } from './transaction.cursor.js';

const problemOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    if (error instanceof ProblemException) return error.problem;
    throw error;
  }
  return undefined;
};

describe('transaction cursor', () => {
  it('round-trips a position to the millisecond', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true }),
        fc.uuid(),
        (createdAt, uuid) => {
          const decoded = decodeCursor(encodeCursor({ createdAt, uuid }));
          expect(decoded.createdAt.getTime()).toBe(createdAt.getTime());
          expect(decoded.uuid).toBe(uuid.toLowerCase());
        },
      ),
    );
  });

  it('answers any other string with a 400 problem naming cursor, never another error', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.base64String(),
          fc.json().map((json) => Buffer.from(json).toString('base64url')),
        ),
        (text) => {
          let decoded: unknown;
          const problem = problemOf(() => (decoded = decodeCursor(text)));
          if (problem) {
            expect(problem.status).toBe(400);
            expect(problem.errors).toEqual([{ field: 'cursor', message: expect.any(String) }]);
          } else {
            expect(decoded).toEqual({ createdAt: expect.any(Date), uuid: expect.any(String) });
          }
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('refuses positions that are out of range or not ours', () => {
    const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    for (const bad of [
      encode([1.5, '00000000-0000-4000-8000-000000000000']),
      encode([-1, '00000000-0000-4000-8000-000000000000']),
      encode([0, 'x']),
      encode({}),
      'a'.repeat(201),
      '!!',
    ]) {
      expect(problemOf(() => decodeCursor(bad))?.status).toBe(400);
    }
  });
});
