// @ts-check
import { api } from '../api.js';
import { h, render, toast } from '../dom.js';
import { entryBadge, formatDateTime, formatDuration, retentionText } from '../format.js';
import { explainEntry, senderAddressAdvice } from '../status-explanation.js';

/** @typedef {import('../api.js').Schemas} Schemas */
/** @typedef {Schemas['WebhookLogDoc']} LogEntry */
/** @typedef {Pick<import('../api.js').LogQuery, 'outcome' | 'eventType' | 'subject' | 'referenceId'>} Filters */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The published sender addresses, fetched once per page load for the 403 explanation (null: not available).
 * @type {Promise<string[] | null> | undefined}
 */
let senderAddresses;
function loadSenderAddresses() {
  senderAddresses ??= api.senderAddresses().then(
    (answer) => answer.addresses,
    () => {
      senderAddresses = undefined; // asked again at the next reload
      return null;
    },
  );
  return senderAddresses;
}

/**
 * The delivery log: one row per attempt, newest first, each status explained; resend per row.
 * @param {Schemas['WebhookDoc']} webhook
 * @param {{ retentionMs?: number, eventTypes?: readonly Schemas['EventTypeOptionDoc'][] }} [settings] `retentionMs`: how
 *   long the log is kept (unknown from an older server); `eventTypes`: the server's event types for the filter
 */
export function logPanel(webhook, { retentionMs, eventTypes = [] } = {}) {
  /** @type {Filters} the filters chosen; none: every entry */
  let filters = {};
  /** @type {LogEntry[]} */
  let entries = [];
  /** @type {string | null} */
  let nextCursor = null;
  let watching = 0;
  let loading = 0;
  /** @type {string[] | null} */
  let senders = null;

  const body = h('div', { 'aria-live': 'polite' });
  /** @type {HTMLSelectElement} */
  const outcomeSelect = h(
    'select',
    { id: 'log-outcome', onchange: () => applyFilters() },
    // '' (all) and the server's outcomes.
    h('option', { value: '' }, 'All entries'),
    h('option', { value: 'delivered' }, 'Delivered'),
    h('option', { value: 'failed' }, 'Failed'),
    h('option', { value: 'skipped' }, 'Not sent (disabled)'),
    h('option', { value: 'superseded' }, 'Not repeated (newer status delivered)'),
  );
  /** @type {HTMLSelectElement} */
  const eventSelect = h(
    'select',
    { id: 'log-event-type', onchange: () => applyFilters() },
    // '' (all) and the server's event types.
    h('option', { value: '' }, 'All events'),
    eventTypes.map(({ type, label }) => h('option', { value: type }, label)),
  );
  /** @type {HTMLInputElement} */
  const findInput = h('input', {
    id: 'log-find',
    type: 'search',
    maxLength: 255,
    placeholder: 'e.g. 1001',
    'aria-describedby': 'log-find-hint',
  });

  /** Reads the filter controls: a uuid in "Find" is a payment's (subscription's, payout's) id, other text an order reference. */
  function applyFilters() {
    const find = findInput.value.trim();
    filters = {
      outcome: /** @type {Filters['outcome']} */ (outcomeSelect.value || undefined),
      eventType: /** @type {Filters['eventType']} */ (eventSelect.value || undefined),
      subject: UUID.test(find) ? find : undefined,
      referenceId: find && !UUID.test(find) ? find : undefined,
    };
    return reload();
  }

  /** Back to every entry, the controls too. */
  function clearFilters() {
    filters = {};
    outcomeSelect.value = '';
    eventSelect.value = '';
    findInput.value = '';
  }

  const filtered = () => Object.values(filters).some((value) => value !== undefined);
  const refreshButton = h(
    'button',
    { type: 'button', class: 'button button-secondary', onclick: () => reload() },
    'Refresh',
  );

  async function reload() {
    const load = ++loading;
    const [page, addresses] = await Promise.all([api.logs(webhook.id, filters), loadSenderAddresses()]);
    if (load !== loading) return entries[0]?.id ?? null; // a later reload (e.g. another filter) wins
    entries = page.data;
    senders = addresses;
    nextCursor = page.nextCursor;
    draw();
    return entries[0]?.id ?? null;
  }

  /** @param {HTMLButtonElement} button */
  async function loadMore(button) {
    button.disabled = true;
    const load = loading;
    const page = await api.logs(webhook.id, { ...filters, cursor: nextCursor ?? undefined });
    if (load !== loading) return; // the log was reloaded meanwhile (another filter): this page belongs to the old one
    entries = [...entries, ...page.data];
    nextCursor = page.nextCursor;
    draw();
  }

  /**
   * Sends a test or a resend (`send`) so that the merchant sees its result: a filter could hide it, so the log
   * first goes back to every entry (visibly: the controls are cleared and the message says so), then it is
   * watched until the new attempt arrives.
   * @param {() => Promise<unknown>} send
   * @param {string} sentMessage
   * @param {(attempt: LogEntry) => boolean} [isResult]
   */
  async function sendAndWatch(send, sentMessage, isResult = () => true) {
    const wasFiltered = filtered();
    if (wasFiltered) {
      clearFilters();
      await reload();
    }
    const previousTopId = entries[0]?.id ?? null;
    await send();
    toast(
      wasFiltered
        ? `${sentMessage} The log shows all entries again; the result appears in a few seconds.`
        : `${sentMessage} The result appears in the log in a few seconds.`,
    );
    void watchForNew(previousTopId, isResult);
  }

  /**
   * Looks for the new attempt for a while (the dispatcher writes it within seconds). It asks for the newest
   * attempts of any outcome, so a filter chosen meanwhile cannot hide it, and takes the first that `isResult` (a
   * resend: an attempt of the same event, not another delivery's repeat); then it redraws the log.
   * @param {string | null} previousTopId
   * @param {(attempt: LogEntry) => boolean} isResult
   */
  async function watchForNew(previousTopId, isResult) {
    const run = ++watching;
    for (let i = 0; i < 30 && run === watching; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, i < 10 ? 1000 : 2000));
      if (run !== watching) return;
      const recent = await api.logs(webhook.id, { limit: 10 }).then(
        (page) => page.data,
        () => /** @type {LogEntry[]} */ ([]),
      );
      const seen = recent.findIndex((entry) => entry.id === previousTopId);
      const newest = (seen === -1 ? recent : recent.slice(0, seen)).find(isResult);
      if (newest) {
        await reload().catch(() => undefined);
        const hidden = !entries.some((entry) => entry.id === newest.id);
        toast(
          `Delivery result: ${entryBadge(newest).text} — ${explainEntry(newest).title}.` +
            (hidden ? ' Clear the filters to see it in the log.' : ''),
        );
        return;
      }
    }
  }

  /**
   * @param {LogEntry} entry
   * @param {HTMLButtonElement} button
   */
  async function resend(entry, button) {
    button.disabled = true;
    try {
      await sendAndWatch(
        () => api.resend(webhook.id, entry.id),
        'Sent again.',
        (attempt) => attempt.eventId === entry.eventId,
      );
    } catch (error) {
      toast(/** @type {Error} */ (error).message);
    } finally {
      button.disabled = false;
    }
  }

  function draw() {
    // A redraw replaces the rows: keep keyboard focus on the same entry's Resend button.
    const focused = document.activeElement;
    const focusedLogId = focused && body.contains(focused) ? focused.closest('tr')?.dataset.logId : undefined;
    drawEntries();
    if (focusedLogId) {
      const row = [...body.querySelectorAll('tr')].find((tr) => tr.dataset.logId === focusedLogId);
      row?.querySelector('button')?.focus();
    }
  }

  function drawEntries() {
    if (entries.length === 0) {
      render(
        body,
        h(
          'p',
          { class: 'muted' },
          filtered() ? 'No entries match these filters.' : 'No deliveries yet. Use “Send test” to try your server now.',
        ),
      );
      return;
    }
    const rows = entries.map((entry) => {
      const badge = entryBadge(entry);
      const explanation = explainEntry(entry);
      /** @type {HTMLButtonElement} */
      const resendButton = h(
        'button',
        {
          type: 'button',
          class: 'button button-secondary button-small',
          'aria-label': `Resend the ${entry.eventType} event of ${formatDateTime(entry.createdAt)}`,
          onclick: () => resend(entry, resendButton),
        },
        'Resend',
      );
      return h(
        'tr',
        { dataset: { logId: entry.id, status: String(entry.status), outcome: entry.outcome } },
        h(
          'td',
          { 'data-label': 'Time' },
          h(
            'div',
            {},
            h('time', { datetime: entry.createdAt }, formatDateTime(entry.createdAt)),
            h('div', { class: 'muted small' }, `Attempt ${entry.attempt}`),
          ),
        ),
        h(
          'td',
          { 'data-label': 'Event' },
          h(
            'div',
            {},
            entry.eventType,
            entry.request.referenceId
              ? h('div', { class: 'small reference' }, `Order ${entry.request.referenceId}`)
              : null,
            h('div', { class: 'muted small mono', title: entry.request.uuid }, entry.request.uuid.slice(0, 8)),
          ),
        ),
        h(
          'td',
          { 'data-label': 'Status' },
          h(
            'div',
            {},
            h('span', { class: `badge badge-${badge.tone}` }, badge.text),
            entry.status === null ? null : h('div', { class: 'muted small' }, formatDuration(entry.durationMs)),
          ),
        ),
        h(
          'td',
          { 'data-label': 'What happened' },
          h(
            'div',
            { class: 'explanation' },
            h('p', { class: 'explanation-title' }, explanation.title),
            badge.tone === 'ok' ? null : h('p', { class: 'cause' }, explanation.cause),
            badge.tone === 'ok'
              ? null
              : h('p', { class: 'remedy' }, h('strong', {}, 'What to do: '), explanation.remedy),
            entry.status === 403 ? senderNote(senders) : null,
            // Said as scheduled, not "next": on an older entry that time has passed and the repeat is above it.
            entry.nextAttemptAt
              ? h('p', { class: 'next-attempt' }, `Repeat scheduled for ${formatDateTime(entry.nextAttemptAt)}.`)
              : badge.tone === 'ok' || entry.status === null
                ? null
                : h('p', { class: 'next-attempt' }, 'No automatic repeat follows this attempt.'),
            // Every failure has details, a redirect too (nothing in `error` or the excerpt): where it was sent.
            entry.status !== null && (entry.error || entry.responseExcerpt || badge.tone !== 'ok')
              ? h(
                  'details',
                  { class: 'detail-extra' },
                  h('summary', {}, 'Technical details'),
                  entry.error ? h('p', {}, `Error: ${entry.error}`) : null,
                  entry.responseExcerpt
                    ? h('div', {}, 'Your server answered:', h('pre', {}, entry.responseExcerpt))
                    : null,
                  h(
                    'p',
                    {},
                    `Sent to ${entry.request.url} as ${entry.request.contentType}, version ${entry.request.version}.`,
                  ),
                )
              : null,
          ),
        ),
        h('td', { 'data-label': 'Action' }, resendButton),
      );
    });
    render(
      body,
      h(
        'div',
        { class: 'table-wrap' },
        h(
          'table',
          { class: 'log' },
          h('caption', { class: 'muted small' }, 'Delivery attempts, newest first'),
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              ['Time', 'Event', 'Status', 'What happened', 'Action'].map((title) => h('th', { scope: 'col' }, title)),
            ),
          ),
          h('tbody', {}, rows),
        ),
      ),
      nextCursor
        ? h(
            'div',
            { class: 'log-more' },
            h(
              'button',
              {
                type: 'button',
                class: 'button button-secondary',
                onclick: (event) => loadMore(/** @type {HTMLButtonElement} */ (event.currentTarget)),
              },
              'Show older attempts',
            ),
          )
        : null,
    );
  }

  const section = h(
    'section',
    { class: 'card', 'aria-labelledby': 'log-title' },
    h(
      'div',
      { class: 'card-head' },
      h('h2', { id: 'log-title' }, 'Delivery log'),
      h('div', { class: 'log-tools' }, refreshButton),
    ),
    h(
      'form',
      {
        class: 'log-filters',
        role: 'search',
        'aria-label': 'Search the delivery log',
        onsubmit: (/** @type {Event} */ event) => {
          event.preventDefault();
          void applyFilters();
        },
      },
      h('div', { class: 'field' }, h('label', { for: 'log-outcome' }, 'Show'), outcomeSelect),
      h('div', { class: 'field' }, h('label', { for: 'log-event-type' }, 'Event'), eventSelect),
      h(
        'div',
        { class: 'field' },
        h('label', { for: 'log-find' }, 'Find'),
        findInput,
        h('p', { class: 'muted small', id: 'log-find-hint' }, 'An order reference, or a payment’s id'),
      ),
      h('button', { type: 'submit', class: 'button button-secondary' }, 'Search'),
    ),
    retentionMs
      ? h(
          'p',
          { class: 'muted small', id: 'log-retention' },
          `Attempts are kept for ${retentionText(retentionMs)}; older ones are removed and can no longer be resent.`,
        )
      : null,
    body,
  );
  return { element: section, reload, sendAndWatch };
}

/**
 * Under a 403: the addresses to allow-list, or what to do when none are published.
 * @param {string[] | null} addresses
 */
function senderNote(addresses) {
  if (addresses === null) return null;
  const advice = senderAddressAdvice(addresses);
  return h(
    'div',
    { class: 'sender-addresses' },
    h('p', {}, advice.text),
    advice.addresses.length > 0
      ? h(
          'ul',
          { class: 'mono small' },
          advice.addresses.map((address) => h('li', {}, address)),
        )
      : null,
  );
}
