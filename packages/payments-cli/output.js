// @ts-check
// The lines `payments listen` prints.

/** @param {number} n */
const two = (n) => String(n).padStart(2, '0');

/**
 * Local time to the second: 2026-11-28 16:02:03.
 * @param {Date} date
 */
export function localTime(date) {
  const day = `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())}`;
  return `${day} ${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}`;
}

/**
 * @param {{ id: string, secret: string, events?: string[], version?: string, contentType?: string }} session
 * @param {string} forwardTo
 */
export function readyLine(session, forwardTo) {
  const events = Array.isArray(session.events) ? session.events.join(', ') : 'all';
  return (
    `Ready! Your webhook signing secret is ${session.secret} ` +
    `(session ${session.id}: ${events} events, version ${session.version}, ${session.contentType} → ${forwardTo}). ` +
    'Press Ctrl+C to quit.'
  );
}

/**
 * @param {Date} at when the event arrived
 * @param {{ eventType?: string, subjectId?: string }} event
 * @param {{ status: number, durationMs: number, error: string | null }} result
 */
export function eventLine(at, event, result) {
  const outcome = result.status === 0 ? `ERROR ${result.error}` : String(result.status);
  return `${localTime(at)}  ${event.eventType ?? '?'}  ${event.subjectId ?? '-'}  --> ${outcome} [${result.durationMs} ms]`;
}

/** @param {number} ms */
export function seconds(ms) {
  return `${ms % 1000 === 0 ? ms / 1000 : (ms / 1000).toFixed(1)} s`;
}
