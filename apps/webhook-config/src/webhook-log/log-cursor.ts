/**
 * Keyset cursor of the webhook log: the (created_at, id) of the last entry of a page. `created_at` is kept as
 * PostgreSQL printed it (microseconds, with offset), because a JavaScript Date would drop the microseconds
 * and skip or repeat entries. Opaque to clients: base64url of JSON.
 */
export interface LogCursor {
  createdAt: string;
  id: string;
}

const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(\.\d{1,6})?(?:[+-](\d{2})(?::?(\d{2}))?|Z)$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function encodeLogCursor(cursor: LogCursor): string {
  return Buffer.from(JSON.stringify([cursor.createdAt, cursor.id]), 'utf8').toString('base64url');
}

/** The cursor, or undefined when the text is not one this service issued. */
export function decodeLogCursor(text: string): LogCursor | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    if (!Array.isArray(value) || value.length !== 2) return undefined;
    const [createdAt, id] = value as unknown[];
    if (typeof createdAt !== 'string' || typeof id !== 'string' || !isTimestamp(createdAt) || !UUID.test(id))
      return undefined;
    return { createdAt, id };
  } catch {
    return undefined;
  }
}

/**
 * The instant of a cursor's `created_at`, to the millisecond (for bounding which days a page reads, never for the
 * keyset itself).
 */
export function cursorTime(cursor: LogCursor): number {
  const iso = cursor.createdAt
    .replace(' ', 'T')
    .replace(/(\.\d{3})\d+/, '$1')
    .replace(/([+-]\d{2})$/, '$1:00')
    .replace(/([+-]\d{2})(\d{2})$/, '$1:$2');
  return Date.parse(iso);
}

/** A timestamp PostgreSQL accepts: the pattern, and fields that exist (no month 13, no 30 February, no +24:00). */
function isTimestamp(text: string): boolean {
  const match = TIMESTAMP.exec(text);
  if (!match) return false;
  const [year, month, day, hour, minute, second, offsetHours = 0, offsetMinutes = 0] = [1, 2, 3, 4, 5, 6, 8, 9].map(
    (group) => Number(match[group] ?? 0),
  );
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  return (
    year >= 1 &&
    date.getUTCFullYear() === year &&
    date.getUTCMonth() === month - 1 &&
    date.getUTCDate() === day &&
    hour <= 23 &&
    minute <= 59 &&
    second <= 59 &&
    offsetHours <= 15 &&
    offsetMinutes <= 59
  );
}
