/** What happens after an attempt. */
export type NextStep =
  { kind: 'done' } | { kind: 'retry'; attempt: number; delayMs: number } | { kind: 'give-up'; parked: boolean };

/**
 * CONTRACT §5: with retryOnError a failed delivery is repeated up to `delaysMs.length` (≤ 10) times, repeat n
 * after delaysMs[n-1]; without it exactly one attempt. Manual attempts (test, resend) are never repeated.
 * A delivery that used up its repeats is parked (dead-letter queue) and stays visible in the log as failed.
 */
export function nextStep(input: {
  succeeded: boolean;
  attempt: number;
  retryOnError: boolean;
  manual: boolean;
  delaysMs: readonly number[];
}): NextStep {
  if (input.succeeded) return { kind: 'done' };
  if (input.manual || !input.retryOnError) return { kind: 'give-up', parked: false };
  const repeat = input.attempt; // attempt 1 failed → repeat 1
  if (repeat > input.delaysMs.length) return { kind: 'give-up', parked: true };
  return { kind: 'retry', attempt: input.attempt + 1, delayMs: input.delaysMs[repeat - 1] };
}
