import { describe, expect, it } from '@jest/globals';
import { randomUUID, randomUUIDv7 } from 'node:crypto';
import { createdAtRangeOf, logOfDeliveryRange, ROW_TIME_SLACK_MS, uuidV7Time } from './delivery-time.js';

describe('uuidV7Time', () => {
  it('reads the millisecond a version-7 UUID was made at', () => {
    const before = Date.now();
    const id = randomUUIDv7();
    const after = Date.now();
    const time = uuidV7Time(id)!;
    expect(time).toBeGreaterThanOrEqual(before);
    expect(time).toBeLessThanOrEqual(after);
    expect(uuidV7Time('0193b6b0-0000-7000-8000-000000000000')).toBe(0x0193b6b00000);
    expect(uuidV7Time('0193B6B0-0000-7000-8000-000000000000')).toBe(0x0193b6b00000);
  });

  it('reads no time from any other UUID: its first bits are random or something else', () => {
    expect(uuidV7Time(randomUUID())).toBeUndefined();
    expect(uuidV7Time('0193b6b0-0000-1000-8000-000000000000')).toBeUndefined();
    expect(uuidV7Time('0193b6b0-0000-7000-c000-000000000000')).toBeUndefined(); // not the RFC 9562 variant
    expect(uuidV7Time('not a uuid')).toBeUndefined();
  });
});

describe('createdAtRangeOf / logOfDeliveryRange', () => {
  it('bounds a row keyed by a version-7 id to the slack around the time in its id', () => {
    const id = '0193b6b0-0000-7000-8000-000000000000';
    expect(createdAtRangeOf(id)).toEqual({
      from: new Date(0x0193b6b00000 - ROW_TIME_SLACK_MS),
      to: new Date(0x0193b6b00000 + ROW_TIME_SLACK_MS),
    });
    expect(logOfDeliveryRange(id, 0x0193b6b00000 + 86_400_000)).toEqual({
      from: new Date(0x0193b6b00000 - ROW_TIME_SLACK_MS),
      to: new Date(0x0193b6b00000 + 86_400_000 + ROW_TIME_SLACK_MS),
    });
  });

  it('leaves any other id unbounded (every partition is read), but never a log entry after now', () => {
    expect(createdAtRangeOf(randomUUID())).toEqual({ from: '-infinity', to: 'infinity' });
    expect(logOfDeliveryRange(randomUUID(), 1_000)).toEqual({
      from: '-infinity',
      to: new Date(1_000 + ROW_TIME_SLACK_MS),
    });
    const to = logOfDeliveryRange(randomUUIDv7()).to as Date;
    expect(to.getTime()).toBeGreaterThan(Date.now() + ROW_TIME_SLACK_MS - 60_000);
  });
});
