import { describe, expect, it } from '@jest/globals';
import { cursorTime, decodeLogCursor, encodeLogCursor } from './log-cursor.js';

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
    ...[
      '2026-13-01 10:00:00+00',
      '2026-02-30 10:00:00+00',
      '2025-02-29 10:00:00+00',
      '0000-01-01 10:00:00+00',
      '2026-11-22 24:00:00+00',
      '2026-11-22 10:60:00+00',
      '2026-11-22 10:00:60+00',
      '2026-11-22 10:00:00+16',
      '2026-11-22 10:00:00+05:60',
    ].map((createdAt) => encodeLogCursor({ createdAt, id: '5f0c6a2e-9d1b-4c53-8f3e-2b1a7c9d0e11' })),
  ])('refuses %p', (text) => {
    expect(decodeLogCursor(text)).toBeUndefined();
  });

  it.each([
    '2024-02-29 23:59:59.999999+00',
    '2026-11-22T10:00:00Z',
    '2026-11-22 10:00:00+05:30',
    '0001-01-01 00:00:00-15',
  ])('accepts the real timestamp %p', (createdAt) => {
    const cursor = { createdAt, id: '5f0c6a2e-9d1b-4c53-8f3e-2b1a7c9d0e11' };
    expect(decodeLogCursor(encodeLogCursor(cursor))).toEqual(cursor);
  });
});

describe('cursorTime', () => {
  it('reads the instant of every form of timestamp a cursor may hold, to the millisecond', () => {
    const at = (createdAt: string) => cursorTime({ createdAt, id: '5f0c6a2e-9d1b-4c53-8f3e-2b1a7c9d0e11' });
    expect(at('2026-11-22 10:00:00.123456+00')).toBe(Date.parse('2026-11-22T10:00:00.123Z'));
    expect(at('2026-11-22 10:00:00+00')).toBe(Date.parse('2026-11-22T10:00:00Z'));
    expect(at('2026-11-22 11:30:00.5+01:30')).toBe(Date.parse('2026-11-22T10:00:00.500Z'));
    expect(at('2026-11-22T04:00:00-0600')).toBe(Date.parse('2026-11-22T10:00:00Z'));
    expect(at('2026-11-22T10:00:00Z')).toBe(Date.parse('2026-11-22T10:00:00Z'));
  });
});
