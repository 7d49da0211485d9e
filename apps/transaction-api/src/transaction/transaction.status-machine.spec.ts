import { describe, expect, it } from '@jest/globals';
import { TRANSACTION_STATUSES } from '#domain';
import {
  describeStatusMoves,
  STATUSES_BEFORE,
  statusMove,
  TRANSACTION_STATUS_MOVES,
} from './transaction.status-machine.js';

describe('transaction status machine', () => {
  it('has a row for every status and only moves to known statuses, never to itself', () => {
    expect(Object.keys(TRANSACTION_STATUS_MOVES).sort()).toEqual([...TRANSACTION_STATUSES].sort());
    for (const [from, targets] of Object.entries(TRANSACTION_STATUS_MOVES)) {
      for (const to of targets) expect(TRANSACTION_STATUSES).toContain(to);
      expect(targets).not.toContain(from);
      expect(new Set(targets).size).toBe(targets.length);
    }
  });

  it('treats the same status as no move, for every status including final ones', () => {
    for (const status of TRANSACTION_STATUSES) expect(statusMove(status, status)).toBe('same');
  });

  it('allows the payment lifecycle and forbids going back', () => {
    expect(statusMove('waiting', 'authorized')).toBe('allowed');
    expect(statusMove('authorized', 'confirmed')).toBe('allowed');
    expect(statusMove('confirmed', 'refund_pending')).toBe('allowed');
    expect(statusMove('refund_pending', 'refunded')).toBe('allowed');
    expect(statusMove('error', 'confirmed')).toBe('allowed');
    expect(statusMove('confirmed', 'waiting')).toBe('forbidden');
    expect(statusMove('confirmed', 'declined')).toBe('forbidden');
    expect(statusMove('waiting', 'refunded')).toBe('forbidden');
  });

  it('makes refunded, cancelled and declined final', () => {
    for (const final of ['refunded', 'cancelled', 'declined'] as const) {
      for (const to of TRANSACTION_STATUSES) {
        if (to !== final) expect(statusMove(final, to)).toBe('forbidden');
      }
    }
  });

  it('can reach every status from waiting', () => {
    const reached = new Set<string>(['waiting']);
    const queue = ['waiting'] as (keyof typeof TRANSACTION_STATUS_MOVES)[];
    while (queue.length) {
      for (const next of TRANSACTION_STATUS_MOVES[queue.shift()!]) {
        if (!reached.has(next)) {
          reached.add(next);
          queue.push(next);
        }
      }
    }
    expect([...reached].sort()).toEqual([...TRANSACTION_STATUSES].sort());
  });

  it('lists, for each status, exactly the statuses allowed to move to it', () => {
    for (const to of TRANSACTION_STATUSES) {
      for (const from of TRANSACTION_STATUSES) {
        expect([from, to, STATUSES_BEFORE[to].includes(from)]).toEqual([from, to, statusMove(from, to) === 'allowed']);
      }
    }
    expect(STATUSES_BEFORE.refunded).toEqual(['confirmed', 'refund_pending', 'partially-refunded', 'chargeback']);
  });

  it('describes itself as a table for the docs', () => {
    expect(describeStatusMoves()).toContain('| refunded | — (final) |');
  });
});
