import { describe, expect, it } from '@jest/globals';
import { decodeLogCursor, encodeLogCursor } from './log-cursor.js';

describe('log cursor', () => {
  it('round-trips a PostgreSQL timestamp with microseconds and an id', () => {
    const cursor = { createdAt: '2026-11-22 10:00:00.123456+00', id: '5f0c6a2e-9d1b-4c53-8f3e-2b1a7c9d0e11' };
    const text = encodeLogCursor(cursor);
    expect(text).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeLogCursor(text)).toEqual(cursor);
  });

  it.each([
    '',
    'not-base64!',
    Buffer.from('{"a":1}').toString('base64url'),
    encodeLogCursor({ createdAt: "now'); DROP TABLE x;--", id: 'x' }),
    encodeLogCursor({ createdAt: '2026-11-22 10:00:00+00', id: 'not-a-uuid' }),
  ])('refuses %p', (text) => {
    expect(decodeLogCursor(text)).toBeUndefined();
  });
});
