// @ts-check
import { api, ApiError, session } from './api.js';
import { $, h, render, toast } from './dom.js';
import { cliSessionListView, cliSessionLogView } from './views/cli-sessions.js';
import { eventCatalogView } from './views/event-catalog.js';
import { signInView } from './views/sign-in.js';
import { webhookDetailView } from './views/webhook-detail.js';
import { webhookFormView } from './views/webhook-form.js';
import { webhookListView } from './views/webhook-list.js';

/**
 * The merchant backend: a small hash-routed app. #/ list · #/new create · #/webhooks/<id> detail ·
 * #/webhooks/<id>/edit edit · #/events the event catalog · #/cli-sessions the live `payments listen` sessions ·
 * #/cli-sessions/<id> one session's log. Signed-out visitors see the sign-in form.
 */
const main = $('#main');
let signedIn = false;
/**
 * The secret of a webhook just created, shown once on its page without another request.
 * @type {{ id: string, secret?: string } | null}
 */
let createdSecret = null;

/** @param {string | null} email the signed-in user, or null when signed out */
function showAccount(email) {
  $('#account-email').textContent = email ?? '';
  $('#account').hidden = !email;
}

/** @param {string} [notice] why the sign-in form is shown */
function showSignIn(notice) {
  signedIn = false;
  session.clear();
  showAccount(null);
  signInView(main, {
    notice,
    onSignedIn: ({ email }) => {
      signedIn = true;
      showAccount(email);
      void route();
    },
  });
}

/**
 * @param {HTMLElement} link a navigation link
 * @param {boolean} current whether it leads to the page shown
 */
function markCurrent(link, current) {
  if (current) link.setAttribute('aria-current', 'page');
  else link.removeAttribute('aria-current');
}

async function route() {
  if (!signedIn) return;
  const hash = location.hash || '#/';
  const detail = /^#\/webhooks\/([0-9a-f-]{36})$/.exec(hash);
  const edit = /^#\/webhooks\/([0-9a-f-]{36})\/edit$/.exec(hash);
  const cliSession = /^#\/cli-sessions\/([0-9a-f-]{36})$/.exec(hash);
  markCurrent($('#nav-events'), hash === '#/events');
  markCurrent($('#nav-cli-sessions'), hash === '#/cli-sessions' || Boolean(cliSession));
  try {
    if (hash === '#/events') {
      await eventCatalogView(main);
    } else if (hash === '#/cli-sessions') {
      await cliSessionListView(main);
    } else if (cliSession) {
      await cliSessionLogView(main, { id: cliSession[1] });
    } else if (hash === '#/new') {
      await webhookFormView(main, {
        onSaved: (saved) => (
          (createdSecret = { id: saved.id, secret: saved.secret }),
          (location.hash = `#/webhooks/${saved.id}`)
        ),
      });
    } else if (edit) {
      await webhookFormView(main, { id: edit[1], onSaved: (saved) => (location.hash = `#/webhooks/${saved.id}`) });
    } else if (detail) {
      const secret = createdSecret?.id === detail[1] ? createdSecret.secret : undefined;
      createdSecret = null;
      await webhookDetailView(main, { id: detail[1], createdSecret: secret, onDeleted: () => (location.hash = '#/') });
    } else {
      await webhookListView(main);
    }
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return; // handled: sign-in shown
    render(
      main,
      h(
        'section',
        { class: 'card' },
        h('h1', {}, error instanceof ApiError && error.status === 404 ? 'Not found' : 'Something went wrong'),
        h(
          'p',
          {},
          error instanceof ApiError && error.status === 404
            ? 'This webhook does not exist (any more).'
            : 'The page could not be loaded. Please try again.',
        ),
        h('a', { class: 'button', href: '#/' }, 'Back to all webhooks'),
      ),
    );
  }
}

async function start() {
  session.onSignedOut((notice) => showSignIn(notice));
  $('#sign-out').addEventListener('click', async () => {
    try {
      await api.signOut();
    } finally {
      showSignIn();
      toast('You are signed out.');
    }
  });
  window.addEventListener('hashchange', () => route());
  try {
    const current = await api.currentSession();
    session.set(current.csrfToken);
    signedIn = true;
    showAccount(current.email);
    await route();
  } catch {
    showSignIn();
  }
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
else void start();
