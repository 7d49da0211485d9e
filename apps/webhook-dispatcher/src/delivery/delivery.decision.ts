/** How an attempt went, by its status (the label of `webhook_deliveries_total`). */
export type SendOutcome = 'success' | 'http_error' | 'no_response';

/** Any 2xx is a success; status 0 means no complete response (timeout, refused, blocked, …). */
export function outcomeOf(status: number): SendOutcome {
  if (status >= 200 && status < 300) return 'success';
  return status === 0 ? 'no_response' : 'http_error';
}

/**
 * How long a `Retry-After` header asks to wait (ms from `now`): delta-seconds or an HTTP-date (RFC 9110 §10.2.3);
 * undefined when it says neither. A date in the past asks for no wait.
 */
export function retryAfterMs(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1_000;
  // An HTTP-date names its day and month in letters; a bare number or ISO string is not one.
  if (!/^[A-Za-z]{3},? /.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Statuses whose `Retry-After` a repeat honours (Standard Webhooks; CONTRACT §5). */
const RETRY_AFTER_STATUSES: ReadonlySet<number> = new Set([429, 503]);

/**
 * What follows an attempt. A repeat waits `delayMs`; `retryAfter` when a `Retry-After` made that other than the
 * schedule's delay (the repeat then waits in the dispatcher's schedule, not in the delay queue).
 */
export type NextStep =
  | { kind: 'done' }
  | { kind: 'retry'; attempt: number; delayMs: number; retryAfter?: true }
  | { kind: 'give-up'; parked: boolean };

/** The receiver says the URL no longer exists (Standard Webhooks): never repeated, and the webhook is disabled. */
export const GONE_STATUS = 410;

/**
 * With retryOnError a failed delivery is repeated up to `delaysMs.length` (≤ 10) times, repeat n
 * after delaysMs[n-1]; without it exactly one attempt. Manual attempts (test, resend) are never repeated, nor is an
 * attempt answered 410 Gone. A delivery that used up its repeats is parked (dead-letter queue) and stays visible in
 * the log as failed.
 *
 * A `429` or `503` with `Retry-After` (`retryAfterMs`, {@link retryAfterMs}) counts as a failure like any other, and
 * its repeat is made no earlier than it asks, and at most the next scheduled repeat's delay later than the scheduled
 * time: repeat n waits max(delaysMs[n-1], asked), at most delaysMs[n-1] + delaysMs[n] (the last repeat: twice its
 * delay) — a receiver that asks for longer gets that, so a `Retry-After` of a week cannot hold a delivery for a week.
 */
export function nextStep(input: {
  succeeded: boolean;
  attempt: number;
  retryOnError: boolean;
  manual: boolean;
  delaysMs: readonly number[];
  /** The attempt's HTTP status and how long its `Retry-After` asked to wait, if it had one. */
  status?: number;
  retryAfterMs?: number;
}): NextStep {
  if (input.succeeded) return { kind: 'done' };
  if (input.manual || !input.retryOnError || input.status === GONE_STATUS) return { kind: 'give-up', parked: false };
  const repeat = input.attempt; // attempt 1 failed → repeat 1
  if (repeat > input.delaysMs.length) return { kind: 'give-up', parked: true };
  const delayMs = input.delaysMs[repeat - 1];
  const asked = input.retryAfterMs;
  if (
    asked === undefined ||
    input.status === undefined ||
    !RETRY_AFTER_STATUSES.has(input.status) ||
    asked <= delayMs
  ) {
    return { kind: 'retry', attempt: input.attempt + 1, delayMs };
  }
  const latestMs = delayMs + (input.delaysMs[repeat] ?? delayMs);
  return { kind: 'retry', attempt: input.attempt + 1, delayMs: Math.min(asked, latestMs), retryAfter: true };
}
