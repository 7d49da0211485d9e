import { describe, expect, it } from '@jest/globals';
import { SUBSCRIPTION_EVENTS, toIsoInstant } from './record.shapes.js';

describe('toIsoInstant', () => {
  it('renders UTC ISO 8601 with milliseconds from a Date, an ISO string with offset or epoch milliseconds', () => {
    expect(toIsoInstant(new Date('2026-11-22T10:00:00Z'))).toBe('2026-11-22T10:00:00.000Z');
    expect(toIsoInstant('2026-11-22T11:00:00.25+01:00')).toBe('2026-11-22T10:00:00.250Z');
    expect(toIsoInstant(0)).toBe('1970-01-01T00:00:00.000Z');
  });

  it('rejects an invalid date, naming the field but not the value', () => {
    expect(() => toIsoInstant('not a date')).toThrow(new RangeError('date is not a valid date'));
    expect(() => toIsoInstant(Number.NaN, 'createdAt')).toThrow(new RangeError('createdAt is not a valid date'));
  });
});

describe('SUBSCRIPTION_EVENTS', () => {
  it('lists the events of the platform API', () => {
    expect(SUBSCRIPTION_EVENTS).toStrictEqual(['renewed', 'payment_failed', 'cancelled', 'ended']);
  });
});
