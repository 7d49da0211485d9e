// @ts-check
import { api, ApiError } from '../api.js';
import { h, render, toast } from '../dom.js';
import { formatDateTime } from '../format.js';

/** @typedef {import('../api.js').Schemas['WebhookDoc']} Webhook */
/** @typedef {import('../api.js').Schemas['RecoverProgressDoc']} RecoverProgress */

/** How often a running recover's progress is read. */
const POLL_MS = 1_000;

/**
 * Recover (CONTRACT §5, §6): "Send again" what failed or was not sent since a chosen time (by default: since the
 * webhook started failing), and the latest recover's progress — a bar while it runs, with Cancel, and its final
 * count. The progress is read again every second while the recover runs and the panel is on the page.
 * @param {Webhook} webhook
 * @param {{ onSent: () => void }} options `onSent`: the log has new entries to show
 */
export function recoverPanel(webhook, { onSent }) {
  const defaultSince = webhook.health.failingSince ?? new Date(Date.now() - 86_400_000).toISOString();
  /** @type {HTMLInputElement} */
  const sinceInput = h('input', {
    id: 'recover-since',
    type: 'datetime-local',
    value: toLocalInput(defaultSince),
    'aria-describedby': 'recover-hint',
  });
  const recoverButton = h('button', { type: 'submit', class: 'button button-secondary' }, 'Send again');
  const progressArea = h('div', { class: 'recover-progress', id: 'recover-progress', 'aria-live': 'polite' });
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  /** The sent count last shown: the log is read again when it moves. */
  let shownSent = -1;

  /** @param {RecoverProgress} progress */
  function show(progress) {
    const running = progress.state === 'running';
    recoverButton.disabled = running;
    const percent = progress.total === 0 ? 100 : Math.min(100, Math.round((progress.sent / progress.total) * 100));
    const since = formatDateTime(progress.since);
    const text = running
      ? `Sending again the events since ${since}: ${progress.sent} of ${progress.total} sent.`
      : progress.state === 'finished'
        ? `Recover since ${since} finished: ${progress.sent} of ${progress.total} events sent again` +
          (progress.finishedAt ? ` (${formatDateTime(progress.finishedAt)}).` : '.')
        : `Recover since ${since} cancelled${progress.cancelReason === 'disabled' ? ' (the webhook was disabled)' : ''}: ` +
          `${progress.sent} of ${progress.total} events sent again.`;
    render(
      progressArea,
      h('progress', {
        id: 'recover-bar',
        max: String(Math.max(progress.total, 1)),
        value: String(progress.total === 0 ? 1 : Math.min(progress.sent, progress.total)),
        'aria-label': `${percent} % sent again`,
        'data-state': progress.state,
      }),
      h('p', { id: 'recover-status', 'data-state': progress.state }, text),
      running
        ? h(
            'button',
            { type: 'button', class: 'button button-secondary', id: 'recover-cancel', onclick: () => cancel() },
            'Cancel',
          )
        : null,
    );
    clearTimeout(timer);
    if (running) timer = setTimeout(() => void refresh(), POLL_MS);
  }

  async function refresh() {
    if (!element.isConnected && timer !== undefined) return; // the page moved on
    try {
      const progress = await api.recoverProgress(webhook.id);
      show(progress);
      if (shownSent !== -1 && progress.sent !== shownSent) onSent();
      shownSent = progress.sent;
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) return; // never recovered
      timer = setTimeout(() => void refresh(), POLL_MS * 5);
    }
  }

  async function recover() {
    recoverButton.disabled = true;
    try {
      const { count } = await api.recover(webhook.id, new Date(sinceInput.value).toISOString());
      if (count === 0) {
        toast('Nothing to send again: every event since then was delivered.');
        recoverButton.disabled = false;
        return;
      }
      toast(`${count} ${count === 1 ? 'event is' : 'events are'} being sent again; the log shows them as they go.`);
      await refresh();
    } catch (error) {
      toast(/** @type {Error} */ (error).message);
      recoverButton.disabled = false;
    }
  }

  async function cancel() {
    try {
      show(await api.cancelRecover(webhook.id));
      toast('The recover was cancelled: nothing more of it is sent.');
    } catch (error) {
      toast(/** @type {Error} */ (error).message);
    }
  }

  const element = h(
    'form',
    {
      class: 'recover',
      onsubmit: (/** @type {Event} */ event) => {
        event.preventDefault();
        void recover();
      },
    },
    h('label', { for: 'recover-since' }, 'Recover events since'),
    h(
      'p',
      { class: 'hint', id: 'recover-hint' },
      'Every event since then that failed or was not sent (while disabled) is sent again, with its own ' +
        'webhook-id, within the rate limit.',
    ),
    h('div', { class: 'recover-row' }, sinceInput, recoverButton),
    progressArea,
  );
  void refresh();
  return element;
}

/**
 * An ISO time as a datetime-local input's value (local time, to the minute).
 * @param {string} iso
 */
function toLocalInput(iso) {
  const date = new Date(iso);
  const local = new Date(date.getTime() - date.getTimezoneOffset() * 60_000);
  return local.toISOString().slice(0, 16);
}
