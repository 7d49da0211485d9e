import { isUuid } from '../common/uuid.js';
import { TransactionException, TransactionExceptionCode } from './transaction.exception.js';

/**
 * The orders of the merchant list: newest first by (createdAt, uuid), the default; or oldest change first by
 * (updatedAt, uuid), for catching up on every change since an instant.
 */
export const TRANSACTION_ORDERS = ['-createdAt', 'updatedAt'] as const;
export type TransactionOrder = (typeof TRANSACTION_ORDERS)[number];
export const DEFAULT_ORDER: TransactionOrder = '-createdAt';

/** A position in one order: the (createdAt or updatedAt, uuid) of the last transaction of the previous page. */
export interface TransactionCursor {
  at: Date;
  uuid: string;
}

const MAX_CURSOR_LENGTH = 200;
const MIN_TIME = Date.UTC(1970, 0, 1);
const MAX_TIME = Date.UTC(10000, 0, 1);

/**
 * Opaque to clients: base64url of `[millis, uuid]` in the newest-first order (the form from before there was a
 * second order, so cursors handed out then keep working) and of `[millis, uuid, "updatedAt"]` in the change order.
 */
export function encodeCursor(order: TransactionOrder, cursor: TransactionCursor): string {
  const position = [cursor.at.getTime(), cursor.uuid];
  return Buffer.from(JSON.stringify(order === DEFAULT_ORDER ? position : [...position, order]), 'utf8').toString(
    'base64url',
  );
}

/**
 * Decodes a cursor for `order`. Anything that is not one of ours, or one made for the other order (its position
 * means nothing there), is an INVALID_CURSOR naming `cursor`.
 */
export function decodeCursor(text: string, order: TransactionOrder): TransactionCursor {
  const refuse = (message: string) =>
    new TransactionException(`cursor ${message}.`, TransactionExceptionCode.INVALID_CURSOR, [
      { field: 'cursor', message },
    ]);
  const invalid = () => refuse('is not a cursor returned by this API');
  if (text.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(text)) throw invalid();
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (!Array.isArray(value) || value.length < 2 || value.length > 3) throw invalid();
  const [time, uuid, made = DEFAULT_ORDER] = value as unknown[];
  if (typeof time !== 'number' || !Number.isInteger(time) || time < MIN_TIME || time >= MAX_TIME || !isUuid(uuid))
    throw invalid();
  if (!TRANSACTION_ORDERS.includes(made as TransactionOrder)) throw invalid();
  if (made !== order) throw refuse(`was returned for order=${made as string}; send it with that order`);
  return { at: new Date(time), uuid: uuid.toLowerCase() };
}
