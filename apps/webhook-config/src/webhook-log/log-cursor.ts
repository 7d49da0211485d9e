/**
 * Keyset cursor of the webhook log: the (created_at, id) of the last entry of a page. `created_at` is kept as
 * PostgreSQL printed it (microseconds, with offset), because a JavaScript Date would drop the microseconds
 * and skip or repeat entries. Opaque to clients: base64url of JSON.
 */
export interface LogCursor {
  createdAt: string;
  id: string;
}

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(\.\d{1,6})?([+-]\d{2}(:?\d{2})?|Z)$/;
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
    if (typeof createdAt !== 'string' || typeof id !== 'string' || !TIMESTAMP.test(createdAt) || !UUID.test(id))
      return undefined;
    return { createdAt, id };
  } catch {
    return undefined;
  }
}
