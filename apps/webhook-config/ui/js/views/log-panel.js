/* global setTimeout */
import { api } from '../api.js';
import { h, render, toast } from '../dom.js';
import { formatDateTime, formatDuration, statusBadge } from '../format.js';

/** The delivery log: one row per attempt, newest first, each status explained; resend per row. */
export function logPanel(webhook) {
  let outcome = '';
  let entries = [];
  let nextCursor = null;
  let watching = 0;

  const body = h('div', { 'aria-live': 'polite' });
  const outcomeSelect = h(
    'select',
    { id: 'log-outcome', onchange: () => ((outcome = outcomeSelect.value), reload()) },
    h('option', { value: '' }, 'All attempts'),
    h('option', { value: 'success' }, 'Delivered'),
    h('option', { value: 'failure' }, 'Failed'),
  );
  const refreshButton = h(
    'button',
    { type: 'button', class: 'button button-secondary', onclick: () => reload() },
    'Refresh',
  );

  async function reload() {
    const page = await api.logs(webhook.id, { outcome });
    entries = page.data;
    nextCursor = page.nextCursor;
    draw();
    return entries[0]?.id ?? null;
  }

  async function loadMore(button) {
    button.disabled = true;
    const page = await api.logs(webhook.id, { outcome, cursor: nextCursor });
    entries = [...entries, ...page.data];
    nextCursor = page.nextCursor;
    draw();
  }

  /** After a test or resend: look for the new attempt for a while (the dispatcher writes it within seconds). */
  async function watchForNew(previousTopId) {
    const run = ++watching;
    for (let i = 0; i < 30 && run === watching; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, i < 10 ? 1000 : 2000));
      const top = await reload().catch(() => previousTopId);
      if (top && top !== previousTopId) {
        const newest = entries[0];
        toast(`Delivery result: ${statusBadge(newest.status).text} — ${newest.explanation.title}.`);
        return;
      }
    }
  }

  async function resend(entry, button) {
    button.disabled = true;
    try {
      await api.resend(webhook.id, entry.id);
      toast('Sent again. The result appears in the log in a few seconds.');
      void watchForNew(entries[0]?.id ?? null);
    } catch (error) {
      toast(error.message);
    } finally {
      button.disabled = false;
    }
  }

  function draw() {
    if (entries.length === 0) {
      render(
        body,
        h(
          'p',
          { class: 'muted' },
          outcome ? 'No attempts match this filter.' : 'No deliveries yet. Use “Send test” to try your server now.',
        ),
      );
      return;
    }
    const rows = entries.map((entry) => {
      const badge = statusBadge(entry.status);
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
        { dataset: { logId: entry.id, status: String(entry.status) } },
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
            h('div', { class: 'muted small' }, formatDuration(entry.durationMs)),
          ),
        ),
        h(
          'td',
          { 'data-label': 'What happened' },
          h(
            'div',
            { class: 'explanation' },
            h('p', { class: 'explanation-title' }, entry.explanation.title),
            badge.tone === 'ok' ? null : h('p', { class: 'cause' }, entry.explanation.cause),
            badge.tone === 'ok'
              ? null
              : h('p', { class: 'remedy' }, h('strong', {}, 'What to do: '), entry.explanation.remedy),
            entry.nextAttemptAt
              ? h('p', { class: 'next-attempt' }, `Next attempt: ${formatDateTime(entry.nextAttemptAt)}`)
              : null,
            entry.error || entry.responseExcerpt
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
              { type: 'button', class: 'button button-secondary', onclick: (event) => loadMore(event.currentTarget) },
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
      h(
        'div',
        { class: 'log-tools' },
        h('div', { class: 'field' }, h('label', { for: 'log-outcome' }, 'Show'), outcomeSelect),
        refreshButton,
      ),
    ),
    body,
  );
  return { element: section, reload, watchForNew, topId: () => entries[0]?.id ?? null };
}
