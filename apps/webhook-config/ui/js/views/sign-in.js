// @ts-check
import { api, ApiError, session } from '../api.js';
import { focusHeading, h, render } from '../dom.js';

/** @typedef {import('../api.js').Schemas} Schemas */

/**
 * The sign-in form. `notice` explains why it is shown (e.g. the session ended).
 * @param {HTMLElement} main
 * @param {{ onSignedIn: (session: Schemas['SessionDoc']) => void, notice?: string }} options
 */
export function signInView(main, { onSignedIn, notice }) {
  const error = h('div', { class: 'alert alert-error', role: 'alert', hidden: true });
  const email = h('input', {
    id: 'signin-email',
    type: 'email',
    name: 'email',
    autocomplete: 'username',
    required: true,
    spellcheck: 'false',
  });
  const password = h('input', {
    id: 'signin-password',
    type: 'password',
    name: 'password',
    autocomplete: 'current-password',
    required: true,
  });
  const submit = h('button', { type: 'submit', class: 'button' }, 'Sign in');

  const form = h(
    'form',
    {
      class: 'form',
      novalidate: true,
      onsubmit: async (event) => {
        event.preventDefault();
        error.hidden = true;
        if (!email.value.trim() || !password.value) {
          showError('Enter your e-mail address and your password.');
          return;
        }
        submit.disabled = true;
        try {
          const answer = await api.signIn(email.value.trim(), password.value);
          session.set(answer.csrfToken);
          onSignedIn(answer);
        } catch (failure) {
          password.value = '';
          showError(
            failure instanceof ApiError && failure.status === 429
              ? failure.message
              : failure instanceof ApiError && failure.status === 401
                ? 'The e-mail address or the password is not correct.'
                : 'Signing in did not work. Please try again in a moment.',
          );
        } finally {
          submit.disabled = false;
        }
      },
    },
    h('div', { class: 'field' }, h('label', { for: 'signin-email' }, 'E-mail address'), email),
    h('div', { class: 'field' }, h('label', { for: 'signin-password' }, 'Password'), password),
    h('div', { class: 'form-actions' }, submit),
  );

  /** @param {string} message */
  function showError(message) {
    error.textContent = message;
    error.hidden = false;
    password.focus();
  }

  render(
    main,
    h(
      'section',
      { class: 'signin', 'aria-labelledby': 'signin-title' },
      h(
        'div',
        { class: 'card' },
        h('h1', { id: 'signin-title' }, 'Sign in'),
        h('p', { class: 'muted' }, 'Manage the webhooks that tell your shop about payments.'),
        notice ? h('div', { class: 'alert alert-info', role: 'status' }, notice) : null,
        error,
        form,
      ),
    ),
  );
  document.title = 'Sign in · Webhooks';
  focusHeading(main);
  email.focus();
}
