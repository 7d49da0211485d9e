import { describe, expect, it } from '@jest/globals';
import { parseInstant } from './instant.rules.js';

describe('parseInstant', () => {
  it('reads ISO 8601 date-times with a zone, to the millisecond', () => {
    expect(parseInstant('2026-11-22T10:00:00Z')?.toISOString()).toBe('2026-11-22T10:00:00.000Z');
    expect(parseInstant('2026-11-22T10:00:00.123456+01:00')?.toISOString()).toBe('2026-11-22T09:00:00.123Z');
    expect(parseInstant('2026-11-22T10:00-0230')?.toISOString()).toBe('2026-11-22T12:30:00.000Z');
    expect(parseInstant('2026-11-22t10:00:00z')?.toISOString()).toBe('2026-11-22T10:00:00.000Z');
  });

  it('reads a space before the offset as the + an unencoded query string lost', () => {
    expect(parseInstant('2026-11-22T10:00:00 01:00')?.toISOString()).toBe('2026-11-22T09:00:00.000Z');
  });

  it('refuses dates without a zone, impossible dates and years outside 1970–9999', () => {
    for (const bad of [
      '2026-11-22',
      '2026-11-22T10:00:00',
      '2026-02-30T00:00:00Z',
      '2026-13-01T00:00:00Z',
      '2026-11-22T24:00:00Z',
      '1969-12-31T23:59:59Z',
      '10000-01-01T00:00:00Z',
      '1970-01-01T00:30:00+01:00',
      'yesterday',
      '',
      42,
      null,
      undefined,
      {},
    ]) {
      expect(parseInstant(bad)).toBeUndefined();
    }
  });
});
