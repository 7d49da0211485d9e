// @ts-check
import { api } from '../api.js';
import { confirmAction, h, render, toast } from '../dom.js';
import { formatDateTime } from '../format.js';

/** @typedef {import('../api.js').Schemas} Schemas */

const MASK = 'whsec_' + '•'.repeat(24);

/**
 * The signing secret: hidden by default, reveal, copy and rotate. `initialSecret` is shown right after creation.
 * @param {Schemas['WebhookDoc']} webhook
 * @param {{ initialSecret?: string, graceHours: number }} options
 */
export function secretPanel(webhook, { initialSecret, graceHours }) {
  let secret = initialSecret ?? null;
  let visible = Boolean(initialSecret);
  /** @type {string | null} */
  let previousExpiresAt = null;

  const value = h('div', {
    class: 'secret-value',
    id: 'secret-value',
    'aria-live': 'polite',
    'aria-label': 'Signing secret',
  });
  const revealButton = h('button', {
    type: 'button',
    class: 'button button-secondary',
    'aria-controls': 'secret-value',
    onclick: () => toggle(),
  });
  const copyButton = h('button', { type: 'button', class: 'button button-secondary', onclick: () => copy() }, 'Copy');
  const rotateButton = h(
    'button',
    { type: 'button', class: 'button button-secondary', onclick: () => rotate() },
    'Rotate secret',
  );
  const note = h('p', { class: 'hint', id: 'secret-note' });

  function update() {
    value.textContent = visible && secret ? secret : MASK;
    revealButton.textContent = visible ? 'Hide' : 'Reveal';
    revealButton.setAttribute('aria-pressed', String(visible));
    note.textContent = previousExpiresAt
      ? `The previous secret keeps signing webhook-signature until ${formatDateTime(previousExpiresAt)}, so you can update your shop in time (x-webhook-signature already uses the new one).`
      : '';
    note.hidden = !previousExpiresAt;
  }

  /** Fetches the secret (and until when the previous one signs); resolves the secret. */
  async function load() {
    const answer = await api.revealSecret(webhook.id);
    secret = answer.secret;
    previousExpiresAt = answer.previousSecretExpiresAt;
    return answer.secret;
  }

  async function toggle() {
    if (!visible && !secret) await load();
    visible = !visible;
    update();
  }

  async function copy() {
    const text = secret ?? (await load());
    try {
      await navigator.clipboard.writeText(text);
      toast('Secret copied to the clipboard.');
    } catch {
      // No clipboard access (e.g. an insecure origin): show it selected, ready for Ctrl+C.
      visible = true;
      update();
      const range = document.createRange();
      range.selectNodeContents(value);
      const selection = document.getSelection();
      selection?.removeAllRanges();
      selection?.addRange(range);
      toast('Press Ctrl+C (or ⌘+C) to copy the selected secret.');
    }
  }

  async function rotate() {
    const confirmed = await confirmAction({
      title: 'Rotate the signing secret?',
      text:
        `A new secret is created now. The webhook-signature header (Standard Webhooks) carries a signature with the ` +
        `current secret too for ${graceHours} hours, so a shop that checks it keeps accepting webhooks while you ` +
        `replace the secret. The older x-webhook-signature header has room for one signature and uses the new ` +
        `secret at once: if your shop checks that header, replace the secret there right away.`,
      confirmLabel: 'Rotate secret',
    });
    if (!confirmed) return;
    rotateButton.disabled = true;
    try {
      secret = (await api.rotateSecret(webhook.id)).secret;
      visible = true;
      update();
      toast('New secret created. Copy it into your shop system.');
      // The rotation answers with the new secret only; the reveal also tells until when the old one signs.
      await load().then(update, () => undefined);
    } catch (error) {
      toast(/** @type {Error} */ (error).message);
    } finally {
      rotateButton.disabled = false;
    }
  }

  update();
  const section = h(
    'section',
    { class: 'card', 'aria-labelledby': 'secret-title' },
    h('div', { class: 'card-head' }, h('h2', { id: 'secret-title' }, 'Signing secret')),
    h(
      'p',
      { class: 'muted small' },
      'Your server uses this secret to check that each webhook really comes from us (the webhook-signature header). Keep it private.',
    ),
    h('div', { class: 'secret-row' }, value, h('div', { class: 'actions' }, revealButton, copyButton, rotateButton)),
    note,
  );
  return render(h('div'), section);
}
