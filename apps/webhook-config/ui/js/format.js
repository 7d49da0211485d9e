// @ts-check
/** Wording and formatting shown to shop owners. */

/** @typedef {import('./api.js').Schemas} Schemas */
/** @typedef {Schemas['WebhookDoc']['events'][number]} EventType */
/** @typedef {Schemas['EventTypeOptionDoc']} EventTypeOption the server's choice of event type, with its wording */
/** @typedef {Schemas['WebhookDoc']['contentType']} ContentType */
/** @typedef {{ label: string, hint: string }} Label */

/** @type {Record<ContentType, Label>} */
export const CONTENT_TYPE_LABELS = {
  json: { label: 'JSON', hint: 'application/json — for most shop systems and custom code.' },
  'php-post': { label: 'PHP form post', hint: 'application/x-www-form-urlencoded — for PHP shops that read $_POST.' },
};

/**
 * @param {string} version
 * @param {string} latest
 */
export function versionLabel(version, latest) {
  return version === latest ? `${version} (newest)` : version;
}

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
/** @param {string | null | undefined} iso */
export const formatDateTime = (iso) => (iso ? dateTime.format(new Date(iso)) : '');

/** @param {number} ms */
export function formatDuration(ms) {
  if (ms < 1000) return `${ms} ms`;
  return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
}

/**
 * "up to 10 more times over about 5 days": what retry on error does, from the configured schedule.
 * @param {Schemas['RetryOptionsDoc'] | undefined} retry
 */
export function retrySchedule(retry) {
  // An older server (during a rolling update) sends no schedule.
  if (!retry) return 'on the platform’s retry schedule';
  const { repeats, withinMs } = retry;
  const minutes = withinMs / 60_000;
  const span =
    minutes < 90
      ? plural(Math.max(1, Math.round(minutes)), 'minute')
      : minutes < 48 * 60
        ? plural(Math.round(minutes / 60), 'hour')
        : plural(Math.round(minutes / 1440), 'day');
  return `up to ${plural(repeats, 'more time')} over about ${span}`;
}

/**
 * "30 days": how long the log is kept (WEBHOOK_LOG_RETENTION), in days when whole days, otherwise in hours.
 * @param {number} ms
 */
export function retentionText(ms) {
  const days = ms / 86_400_000;
  return Number.isInteger(days) ? plural(days, 'day') : plural(Math.round(ms / 3_600_000), 'hour');
}

/**
 * @param {number} n
 * @param {string} word
 */
const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * The badge of a log entry: its status, or for an entry that made no request (status null) its outcome.
 * @param {{ status: number | null, outcome: string }} entry
 * @returns {{ text: string, tone: 'ok' | 'warn' | 'bad' }}
 */
export function entryBadge(entry) {
  if (entry.status !== null) return statusBadge(entry.status);
  return entry.outcome === 'skipped' ? { text: 'Not sent', tone: 'warn' } : { text: 'Not repeated', tone: 'ok' };
}

/**
 * The badge text and tone of a status.
 * @param {number} status
 * @returns {{ text: string, tone: 'ok' | 'warn' | 'bad' }}
 */
export function statusBadge(status) {
  if (status >= 200 && status < 300) return { text: String(status), tone: 'ok' };
  if (status === 0 || (status >= 300 && status < 400))
    return { text: status === 0 ? 'No reply' : String(status), tone: 'warn' };
  return { text: String(status), tone: 'bad' };
}

/**
 * @param {readonly EventType[]} events
 * @param {readonly EventTypeOption[]} choices the server's event types with their labels (`GET /api/webhook-options`)
 */
export const eventList = (events, choices) =>
  events.map((event) => choices.find((choice) => choice.type === event)?.label ?? event).join(', ');

/**
 * A webhook's health in words, with the tone of its chip (CONTRACT §5 `health`).
 * @param {{ state: 'healthy' | 'failing' | 'disabled', disabledReason: 'manual' | 'failing' | 'gone' | null }} health
 * @returns {{ text: string, tone: 'ok' | 'warn' | 'bad' }}
 */
export function healthChip(health) {
  if (health.state === 'healthy') return { text: 'Healthy', tone: 'ok' };
  if (health.state === 'failing') return { text: 'Failing', tone: 'bad' };
  if (health.disabledReason === 'gone') return { text: 'Disabled — the URL answered 410 Gone', tone: 'warn' };
  return { text: health.disabledReason === 'failing' ? 'Disabled — kept failing' : 'Disabled', tone: 'warn' };
}
