import { ProblemException } from '#platform';
import { isUuid } from '../common/uuid.js';

/** A position in the newest-first order: the (createdAt, uuid) of the last transaction of the previous page. */
export interface TransactionCursor {
  createdAt: Date;
  uuid: string;
}

const MAX_CURSOR_LENGTH = 200;
const MIN_TIME = Date.UTC(1970, 0, 1);
const MAX_TIME = Date.UTC(10000, 0, 1);

/** Opaque to clients: base64url of `[createdAtMillis, uuid]`. */
export function encodeCursor(cursor: TransactionCursor): string {
  return Buffer.from(JSON.stringify([cursor.createdAt.getTime(), cursor.uuid]), 'utf8').toString('base64url');
}

/** Decodes a cursor; anything that is not one of ours is a 400 problem naming `cursor`. */
export function decodeCursor(text: string): TransactionCursor {
  const invalid = () =>
    ProblemException.validation([{ field: 'cursor', message: 'is not a cursor returned by this API' }]);
  if (text.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(text)) throw invalid();
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (!Array.isArray(value) || value.length !== 2) throw invalid();
  const [time, uuid] = value as unknown[];
  if (typeof time !== 'number' || !Number.isInteger(time) || time < MIN_TIME || time >= MAX_TIME || !isUuid(uuid))
    throw invalid();
  return { createdAt: new Date(time), uuid: uuid.toLowerCase() };
}
