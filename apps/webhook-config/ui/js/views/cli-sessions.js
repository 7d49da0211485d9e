// @ts-check
import { api, ApiError } from '../api.js';
import { focusHeading, h, render, toast } from '../dom.js';
import {
  CONTENT_TYPE_LABELS,
  eventList,
  formatDateTime,
  formatDuration,
  statusBadge,
  versionLabel,
} from '../format.js';
import { explainForwardStatus } from '../status-explanation.js';

/** @typedef {import('../api.js').Schemas} Schemas */
/** @typedef {Schemas['CliSessionDoc']} CliSession */
/** @typedef {Schemas['CliSessionLogDoc']} CliLogEntry */
/** @typedef {Schemas['WebhookOptionsDoc']} Options */

/** What a developer types to start a session (docs/developers.md). */
const LISTEN_COMMAND = 'npx payments listen --api-key <key> --forward-to http://localhost:4242/webhooks';
const TRIGGER_COMMAND = 'npx payments trigger transaction';

/** The pages refresh themselves this often while they are shown, and stop after a while (a forgotten tab). */
const REFRESH_EVERY_MS = 5000;
const REFRESH_ROUNDS = 120; // 10 minutes

/**
 * Calls `refresh` every few seconds while `element` is on the page and the tab is visible, at most
 * {@link REFRESH_ROUNDS} times: a page left open does not ask the server forever. A failed round is skipped (a
 * signed-out session is handled by the API client, which replaces the page and so ends the loop).
 * @param {Element} element
 * @param {() => Promise<unknown>} refresh
 */
function autoRefresh(element, refresh) {
  let rounds = 0;
  const timer = setInterval(() => {
    if (!element.isConnected || rounds >= REFRESH_ROUNDS) {
      clearInterval(timer);
      return;
    }
    if (document.visibilityState === 'hidden') return;
    rounds += 1;
    refresh().catch(() => undefined);
  }, REFRESH_EVERY_MS);
}

/**
 * A "Refresh" button: runs `reload` now, disabled meanwhile; a failure is a toast.
 * @param {() => Promise<void>} reload
 */
function refreshButtonFor(reload) {
  const button = h(
    'button',
    {
      type: 'button',
      class: 'button button-secondary',
      onclick: async () => {
        button.disabled = true;
        try {
          await reload();
        } catch (error) {
          toast(/** @type {Error} */ (error).message);
        } finally {
          button.disabled = false;
        }
      },
    },
    'Refresh',
  );
  return button;
}

/**
 * The connected badge of a session.
 * @param {CliSession} session
 */
function connectedBadge(session) {
  return h(
    'span',
    {
      class: `badge badge-${session.connected ? 'ok' : 'warn'}`,
      dataset: { connected: String(session.connected) },
    },
    session.connected ? 'Connected' : 'Not connected',
  );
}

/**
 * What a session listens to and where it forwards, as a list of terms.
 * @param {CliSession} session
 * @param {{ integrationName: Map<string, string>, options: Options }} context
 */
function sessionSummary(session, { integrationName, options }) {
  return h(
    'dl',
    { class: 'summary' },
    h('dt', {}, 'Integration'),
    h('dd', {}, integrationName.get(session.integrationId) ?? 'An integration of yours'),
    h('dt', {}, 'Events'),
    h('dd', {}, eventList(session.events, options.events)),
    h('dt', {}, 'Version'),
    h('dd', {}, versionLabel(session.version, options.latestVersion)),
    h('dt', {}, 'Format'),
    h('dd', {}, CONTENT_TYPE_LABELS[session.contentType]?.label ?? session.contentType),
    h('dt', {}, 'Forwards to'),
    h('dd', { class: 'mono' }, session.forwardTo ?? 'Not given'),
    h('dt', {}, 'Started'),
    h('dd', {}, h('time', { datetime: session.createdAt }, formatDateTime(session.createdAt))),
    h('dt', {}, 'Last seen'),
    h('dd', {}, h('time', { datetime: session.lastSeenAt }, formatDateTime(session.lastSeenAt))),
  );
}

/** The integrations' names and the server's wording of event types and versions. */
async function loadContext() {
  const [{ data: integrations }, options] = await Promise.all([api.integrations(), api.options()]);
  return { integrationName: new Map(integrations.map((item) => [item.id, item.name])), options };
}

/** How to start a session, for the empty list. */
function emptyState() {
  return h(
    'section',
    { class: 'card empty', 'aria-labelledby': 'empty-title' },
    h('div', { class: 'empty-mark', 'aria-hidden': 'true' }),
    h('h2', { id: 'empty-title' }, 'No CLI sessions running'),
    h(
      'p',
      { class: 'muted' },
      'Receive your integration’s events on your own machine while you build: start a session with the integration’s ' +
        'API key, and it forwards each event, signed like a webhook, to your local server.',
    ),
    h('pre', { class: 'code-block', 'aria-label': 'Command to start a session' }, LISTEN_COMMAND),
    h(
      'p',
      { class: 'muted' },
      'Then send a sample event with ',
      h('code', {}, TRIGGER_COMMAND),
      '. The session shows here while it runs.',
    ),
  );
}

/**
 * "CLI sessions": the merchant's live `payments listen` sessions, connected or not, each linking to its log.
 * @param {HTMLElement} main
 */
export async function cliSessionListView(main) {
  const [{ data: first }, context] = await Promise.all([api.cliSessions(), loadContext()]);
  let sessions = first;
  const list = h('div', { 'aria-live': 'polite' });

  function draw() {
    if (sessions.length === 0) {
      render(list, emptyState());
      return;
    }
    render(
      list,
      h(
        'ul',
        { class: 'webhook-list', 'aria-label': 'Your CLI sessions' },
        sessions.map((session) =>
          h(
            'li',
            { class: 'card webhook-item cli-session', dataset: { sessionId: session.id } },
            h(
              'div',
              {},
              h(
                'div',
                { class: 'card-head' },
                h('h2', {}, h('a', { href: `#/cli-sessions/${session.id}` }, `Session ${session.id.slice(0, 8)}`)),
                connectedBadge(session),
              ),
              sessionSummary(session, context),
            ),
            h(
              'div',
              { class: 'actions' },
              h(
                'a',
                {
                  class: 'button button-secondary button-small',
                  href: `#/cli-sessions/${session.id}`,
                  'aria-label': `Open the log of session ${session.id.slice(0, 8)}`,
                },
                'Open log',
              ),
            ),
          ),
        ),
      ),
    );
  }

  /** Asks again; redraws only when something changed (keeps the reader's place and focus). */
  async function reload() {
    const { data } = await api.cliSessions();
    if (!list.isConnected) return;
    if (JSON.stringify(data) === JSON.stringify(sessions)) return;
    sessions = data;
    draw();
  }

  const refreshButton = refreshButtonFor(() => reload());

  draw();
  render(
    main,
    h(
      'div',
      { class: 'page-head' },
      h(
        'div',
        {},
        h('h1', {}, 'CLI sessions'),
        h(
          'p',
          { class: 'lead' },
          'Sessions of ',
          h('code', {}, 'payments listen'),
          ' forward your integrations’ events to a developer’s local server. A session that ended no longer shows here.',
        ),
      ),
      h('div', { class: 'actions' }, refreshButton),
    ),
    list,
    h('p', { class: 'muted small' }, 'This page updates every few seconds while it is open.'),
  );
  document.title = 'CLI sessions';
  focusHeading(main);
  autoRefresh(list, reload);
}

/**
 * One session: what it listens to, and its log (each forwarded event, what the local URL answered, explained).
 * @param {HTMLElement} main
 * @param {{ id: string }} options
 */
export async function cliSessionLogView(main, { id }) {
  let first;
  try {
    first = await Promise.all([api.cliSessions(), api.cliSessionLogs(id), loadContext()]);
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 404)) throw error;
    render(
      main,
      h(
        'section',
        { class: 'card' },
        h('h1', {}, 'Session not found'),
        h('p', {}, 'This CLI session does not exist, or it ended more than a day ago and its log was removed.'),
        h('a', { class: 'button', href: '#/cli-sessions' }, 'Back to all CLI sessions'),
      ),
    );
    document.title = 'Session not found · CLI sessions';
    focusHeading(main);
    return;
  }
  const [{ data: sessions }, page, context] = first;
  /** @type {CliLogEntry[]} */
  let entries = page.data;
  /** @type {string | null} */
  let nextCursor = page.nextCursor ?? null;
  /** @type {CliSession | undefined} */
  let session = sessions.find((item) => item.id === id);
  let loading = 0;

  const status = h('div', { 'aria-live': 'polite' });
  const body = h('div', { 'aria-live': 'polite' });
  const short = id.slice(0, 8);

  function drawSession() {
    if (!session) {
      render(
        status,
        h(
          'div',
          { class: 'alert alert-info', role: 'status' },
          'This session has ended. Its log is kept for a day; start a new session to receive events again.',
        ),
      );
      return;
    }
    render(
      status,
      h(
        'section',
        { class: 'card', 'aria-labelledby': 'cli-session-title' },
        h('div', { class: 'card-head' }, h('h2', { id: 'cli-session-title' }, 'Session'), connectedBadge(session)),
        session.connected
          ? null
          : h(
              'p',
              { class: 'muted' },
              'The command line is not connected. Events wait a few minutes for it to reconnect; after that they are dropped.',
            ),
        sessionSummary(session, context),
      ),
    );
  }

  function drawEntries() {
    if (entries.length === 0) {
      render(
        body,
        h('p', { class: 'muted' }, 'Nothing forwarded yet. Send a sample with ', h('code', {}, TRIGGER_COMMAND), '.'),
      );
      return;
    }
    render(
      body,
      h(
        'div',
        { class: 'table-wrap' },
        h(
          'table',
          { class: 'log' },
          h('caption', { class: 'muted small' }, 'Forwarded events, newest first'),
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              ['Time', 'Event', 'Local status', 'What happened'].map((title) => h('th', { scope: 'col' }, title)),
            ),
          ),
          h('tbody', {}, entries.map(entryRow)),
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
              'Load more',
            ),
          )
        : null,
    );
  }

  /** @param {HTMLButtonElement} button */
  async function loadMore(button) {
    button.disabled = true;
    const load = loading;
    try {
      const older = await api.cliSessionLogs(id, { cursor: nextCursor ?? undefined });
      if (load !== loading) return; // refreshed meanwhile: this page belongs to the old list
      entries = [...entries, ...older.data.filter((entry) => !entries.some((known) => known.id === entry.id))];
      nextCursor = older.nextCursor ?? null;
      drawEntries();
    } catch (error) {
      toast(/** @type {Error} */ (error).message);
      button.disabled = false;
    }
  }

  /**
   * The session's state again, and the events forwarded since: `full` starts the log over at its newest page (the
   * Refresh button); otherwise new entries are put on top of what is shown (the automatic refresh keeps older pages).
   * @param {boolean} full
   */
  async function reload(full) {
    const load = full ? ++loading : loading;
    const [{ data: live }, newest] = await Promise.all([api.cliSessions(), api.cliSessionLogs(id)]);
    if (load !== loading || !body.isConnected) return;
    const before = JSON.stringify(session);
    session = live.find((item) => item.id === id);
    if (JSON.stringify(session) !== before) drawSession();
    const seen = entries.length ? newest.data.findIndex((entry) => entry.id === entries[0]?.id) : -1;
    if (full || seen === -1) {
      if (!full && JSON.stringify(newest.data) === JSON.stringify(entries)) return;
      entries = newest.data;
      nextCursor = newest.nextCursor ?? null;
    } else if (seen > 0) {
      entries = [...newest.data.slice(0, seen), ...entries];
    } else return;
    drawEntries();
  }

  const refreshButton = refreshButtonFor(() => reload(true));

  drawSession();
  drawEntries();
  render(
    main,
    h('a', { class: 'back', href: '#/cli-sessions' }, '← All CLI sessions'),
    h(
      'div',
      { class: 'page-head' },
      h(
        'div',
        {},
        h('h1', {}, `CLI session ${short}`),
        session?.forwardTo ? h('div', { class: 'url' }, session.forwardTo) : null,
      ),
      h('div', { class: 'actions' }, refreshButton),
    ),
    status,
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'cli-log-title' },
      h('div', { class: 'card-head' }, h('h2', { id: 'cli-log-title' }, 'Forwarded events')),
      h(
        'p',
        { class: 'muted small' },
        'Each event the command line forwarded, and what your local server answered. Events are not repeated. ' +
          'This page updates every few seconds while it is open.',
      ),
      body,
    ),
  );
  document.title = `CLI session ${short} · CLI sessions`;
  focusHeading(main);
  autoRefresh(body, () => reload(false));
}

/**
 * One forwarded event: when, which, what the local server answered and what that means.
 * @param {CliLogEntry} entry
 */
function entryRow(entry) {
  const badge = statusBadge(entry.status);
  const explanation = explainForwardStatus(entry.status);
  return h(
    'tr',
    { dataset: { logId: entry.id, status: String(entry.status) } },
    h('td', { 'data-label': 'Time' }, h('time', { datetime: entry.createdAt }, formatDateTime(entry.createdAt))),
    h(
      'td',
      { 'data-label': 'Event' },
      h(
        'div',
        {},
        entry.eventType,
        entry.referenceId ? h('div', { class: 'small reference' }, `Order ${entry.referenceId}`) : null,
        h('div', { class: 'muted small mono' }, entry.subjectId),
      ),
    ),
    h(
      'td',
      { 'data-label': 'Local status' },
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
        h('p', { class: 'explanation-title' }, explanation.title),
        badge.tone === 'ok' ? null : h('p', { class: 'cause' }, explanation.cause),
        badge.tone === 'ok' ? null : h('p', { class: 'remedy' }, h('strong', {}, 'What to do: '), explanation.remedy),
        entry.error ? h('p', { class: 'error' }, 'Error: ', h('code', {}, entry.error)) : null,
      ),
    ),
  );
}
