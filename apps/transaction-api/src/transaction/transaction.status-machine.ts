import { TRANSACTION_STATUSES, type TransactionStatus } from '#domain';

const HELD: TransactionStatus[] = ['authorized', 'reserved', 'uncaptured'];
const OPEN_OUTCOMES: TransactionStatus[] = ['confirmed', ...HELD, 'cancelled', 'declined', 'error'];

/**
 * The moves `POST /internal/transactions/{uuid}/status` allows (from → to). Staying in the same status is always
 * allowed and is not a move (200, no event). Everything not listed is refused with 409.
 *
 * - `waiting` (payment started) → any outcome: confirmed, authorized/reserved/uncaptured, cancelled, declined, error.
 * - `authorized`, `reserved`, `uncaptured` (funds held, not captured) → each other, confirmed (captured),
 *   cancelled (released), declined, error.
 * - `error` is provisional: the PSP's later answer replaces it → waiting, confirmed, held, cancelled, declined.
 * - `confirmed` (captured) → refund_pending, refunded, partially-refunded, chargeback.
 * - `refund_pending` → refunded, partially-refunded, or confirmed (the refund failed).
 * - `partially-refunded` → refund_pending, refunded, chargeback.
 * - `chargeback` → confirmed (dispute won), refunded.
 * - `refunded`, `cancelled`, `declined` are final.
 */
export const TRANSACTION_STATUS_MOVES: Readonly<Record<TransactionStatus, readonly TransactionStatus[]>> = {
  waiting: OPEN_OUTCOMES,
  authorized: ['confirmed', 'reserved', 'uncaptured', 'cancelled', 'declined', 'error'],
  reserved: ['confirmed', 'authorized', 'uncaptured', 'cancelled', 'declined', 'error'],
  uncaptured: ['confirmed', 'authorized', 'reserved', 'cancelled', 'declined', 'error'],
  error: ['waiting', 'confirmed', ...HELD, 'cancelled', 'declined'],
  confirmed: ['refund_pending', 'refunded', 'partially-refunded', 'chargeback'],
  refund_pending: ['refunded', 'partially-refunded', 'confirmed'],
  'partially-refunded': ['refund_pending', 'refunded', 'chargeback'],
  chargeback: ['confirmed', 'refunded'],
  refunded: [],
  cancelled: [],
  declined: [],
};

/** For each status, the statuses a transaction may move to it from (the moves above, read backwards). */
export const STATUSES_BEFORE: Readonly<Record<TransactionStatus, readonly TransactionStatus[]>> = Object.fromEntries(
  TRANSACTION_STATUSES.map((to) => [
    to,
    TRANSACTION_STATUSES.filter((from) => TRANSACTION_STATUS_MOVES[from].includes(to)),
  ]),
) as Record<TransactionStatus, TransactionStatus[]>;

export type StatusMove = 'same' | 'allowed' | 'forbidden';

export function statusMove(from: TransactionStatus, to: TransactionStatus): StatusMove {
  if (from === to) return 'same';
  return TRANSACTION_STATUS_MOVES[from].includes(to) ? 'allowed' : 'forbidden';
}

/** Markdown table of the machine, for the OpenAPI description. */
export function describeStatusMoves(): string {
  const rows = TRANSACTION_STATUSES.map((from) => {
    const to = TRANSACTION_STATUS_MOVES[from];
    return `| ${from} | ${to.length ? to.join(', ') : '— (final)'} |`;
  });
  return ['| from | allowed to |', '|---|---|', ...rows].join('\n');
}
