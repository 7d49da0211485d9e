import { describe, expect, it } from '@jest/globals';
import { nextStep, outcomeOf } from './delivery.decision.js';

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
