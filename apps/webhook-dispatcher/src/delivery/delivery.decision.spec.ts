import { describe, expect, it } from '@jest/globals';
import { nextStep, outcomeOf, retryAfterMs } from './delivery.decision.js';

const delaysMs = [
  60_000, 900_000, 3_600_000, 7_200_000, 14_400_000, 86_400_000, 86_400_000, 86_400_000, 86_400_000, 86_400_000,
];

describe('nextStep', () => {
  it('stops after a success', () => {
    expect(nextStep({ succeeded: true, attempt: 1, retryOnError: true, manual: false, delaysMs })).toEqual({
      kind: 'done',
    });
  });

  it('without retryOnError makes exactly one attempt and does not park', () => {
    expect(nextStep({ succeeded: false, attempt: 1, retryOnError: false, manual: false, delaysMs })).toEqual({
      kind: 'give-up',
      parked: false,
    });
  });

  it('repeats after each configured delay, then parks after attempt 11', () => {
    const steps = [];
    for (let attempt = 1; attempt <= 11; attempt += 1) {
      steps.push(nextStep({ succeeded: false, attempt, retryOnError: true, manual: false, delaysMs }));
    }
    expect(steps.slice(0, 10)).toEqual(delaysMs.map((delayMs, i) => ({ kind: 'retry', attempt: i + 2, delayMs })));
    expect(steps[10]).toEqual({ kind: 'give-up', parked: true });
  });

  it('never repeats an attempt answered 410 Gone, and does not park it', () => {
    const step = (status: number) =>
      nextStep({ succeeded: false, attempt: 1, retryOnError: true, manual: false, delaysMs, status });
    expect(step(410)).toEqual({ kind: 'give-up', parked: false });
    expect(step(404)).toEqual({ kind: 'retry', attempt: 2, delayMs: delaysMs[0] });
  });

  it('honours a shorter list of delays', () => {
    expect(nextStep({ succeeded: false, attempt: 2, retryOnError: true, manual: false, delaysMs: [10, 20] })).toEqual({
      kind: 'retry',
      attempt: 3,
      delayMs: 20,
    });
    expect(nextStep({ succeeded: false, attempt: 3, retryOnError: true, manual: false, delaysMs: [10, 20] })).toEqual({
      kind: 'give-up',
      parked: true,
    });
  });

  it('never repeats a manual test or resend', () => {
    expect(nextStep({ succeeded: false, attempt: 4, retryOnError: true, manual: true, delaysMs })).toEqual({
      kind: 'give-up',
      parked: false,
    });
  });
});

describe('what follows an attempt', () => {
  const delays = [10, 20];
  // status, attempt, retryOnError, manual → outcome (metric label), next step
  it.each([
    [200, 1, true, false, 'success', { kind: 'done' }],
    [299, 3, true, false, 'success', { kind: 'done' }],
    [204, 1, false, true, 'success', { kind: 'done' }],
    [199, 1, true, false, 'http_error', { kind: 'retry', attempt: 2, delayMs: 10 }],
    [301, 1, true, false, 'http_error', { kind: 'retry', attempt: 2, delayMs: 10 }],
    [500, 2, true, false, 'http_error', { kind: 'retry', attempt: 3, delayMs: 20 }],
    [0, 2, true, false, 'no_response', { kind: 'retry', attempt: 3, delayMs: 20 }],
    [0, 3, true, false, 'no_response', { kind: 'give-up', parked: true }],
    [503, 1, false, false, 'http_error', { kind: 'give-up', parked: false }],
    [0, 1, true, true, 'no_response', { kind: 'give-up', parked: false }],
  ] as const)(
    'status %d on attempt %d (retryOnError %s, manual %s) → %s, %o',
    (status, attempt, retryOnError, manual, outcome, step) => {
      expect(outcomeOf(status)).toBe(outcome);
      expect(
        nextStep({ succeeded: outcomeOf(status) === 'success', attempt, retryOnError, manual, delaysMs: delays }),
      ).toEqual(step);
    },
  );
});

describe('Retry-After on a 429 or 503', () => {
  const now = Date.parse('2026-11-28T10:00:00Z');
  const failed = (status: number, asked: number | undefined, attempt = 1) =>
    nextStep({
      succeeded: false,
      attempt,
      retryOnError: true,
      manual: false,
      delaysMs: [1_000, 5_000, 20_000],
      status,
      retryAfterMs: asked,
    });

  it('reads delta-seconds and an HTTP-date, and nothing else', () => {
    expect(retryAfterMs('3', now)).toBe(3_000);
    expect(retryAfterMs(' 120 ', now)).toBe(120_000);
    expect(retryAfterMs('Sat, 28 Nov 2026 10:00:04 GMT', now)).toBe(4_000);
    expect(retryAfterMs('Sat, 28 Nov 2026 09:00:00 GMT', now)).toBe(0);
    for (const bad of [undefined, '', '-1', '1.5', 'soon', '2026-11-28T10:00:04Z']) {
      expect(retryAfterMs(bad, now)).toBeUndefined();
    }
  });

  it('repeats no earlier than asked, at most the next delay later than scheduled', () => {
    expect(failed(429, 3_000)).toEqual({ kind: 'retry', attempt: 2, delayMs: 3_000, retryAfter: true });
    expect(failed(503, 3_000)).toEqual({ kind: 'retry', attempt: 2, delayMs: 3_000, retryAfter: true });
    // Asked for more than the scheduled delay plus the next one: that much.
    expect(failed(429, 3_600_000)).toEqual({ kind: 'retry', attempt: 2, delayMs: 6_000, retryAfter: true });
    // The last repeat: at most twice its delay.
    expect(failed(429, 3_600_000, 3)).toEqual({ kind: 'retry', attempt: 4, delayMs: 40_000, retryAfter: true });
  });

  it('keeps the schedule when it asks for less, and for other statuses', () => {
    expect(failed(429, 500)).toEqual({ kind: 'retry', attempt: 2, delayMs: 1_000 });
    expect(failed(500, 3_000)).toEqual({ kind: 'retry', attempt: 2, delayMs: 1_000 });
    expect(failed(429, undefined)).toEqual({ kind: 'retry', attempt: 2, delayMs: 1_000 });
  });

  it('counts as a failure: no repeat without retryOnError', () => {
    expect(
      nextStep({
        succeeded: false,
        attempt: 1,
        retryOnError: false,
        manual: false,
        delaysMs: [1_000],
        status: 429,
        retryAfterMs: 3_000,
      }),
    ).toEqual({ kind: 'give-up', parked: false });
  });
});
