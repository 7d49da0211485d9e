/** How an attempt went, by its status (the label of `webhook_deliveries_total`). */
export type SendOutcome = 'success' | 'http_error' | 'no_response';

/** Any 2xx is a success; status 0 means no complete response (timeout, refused, blocked, …). */
export function outcomeOf(status: number): SendOutcome {
  if (status >= 200 && status < 300) return 'success';
  return status === 0 ? 'no_response' : 'http_error';
}

/** What follows an attempt. */
export type NextStep =
  { kind: 'done' } | { kind: 'retry'; attempt: number; delayMs: number } | { kind: 'give-up'; parked: boolean };

/** The receiver says the URL no longer exists (Standard Webhooks): never repeated, and the webhook is disabled. */
export const GONE_STATUS = 410;

/**
 * With retryOnError a failed delivery is repeated up to `delaysMs.length` (≤ 10) times, repeat n
 * after delaysMs[n-1]; without it exactly one attempt. Manual attempts (test, resend) are never repeated, nor is an
 * attempt answered 410 Gone. A delivery that used up its repeats is parked (dead-letter queue) and stays visible in
 * the log as failed.
 */
export function nextStep(input: {
  succeeded: boolean;
  attempt: number;
  retryOnError: boolean;
  manual: boolean;
  delaysMs: readonly number[];
  status?: number;
}): NextStep {
  if (input.succeeded) return { kind: 'done' };
  if (input.manual || !input.retryOnError || input.status === GONE_STATUS) return { kind: 'give-up', parked: false };
  const repeat = input.attempt; // attempt 1 failed → repeat 1
  if (repeat > input.delaysMs.length) return { kind: 'give-up', parked: true };
  return { kind: 'retry', attempt: input.attempt + 1, delayMs: input.delaysMs[repeat - 1] };
}
