// @ts-check
import { api } from '../api.js';
import { confirmAction, focusHeading, h, render, toast } from '../dom.js';
import { CONTENT_TYPE_LABELS, eventList, formatDateTime, healthChip, retrySchedule, versionLabel } from '../format.js';
import { logPanel } from './log-panel.js';
import { recoverPanel } from './recover-panel.js';
import { secretPanel } from './secret-panel.js';

/** @typedef {import('../api.js').Schemas['WebhookDoc']} Webhook */

/** The banner's first words for a disabled webhook, by its reason. */
const DISABLED_HEADLINE = {
  manual: 'Disabled. ',
  failing: 'Disabled because it kept failing. ',
  gone: 'Disabled: the URL answered 410 Gone. ',
};

/**
 * While a webhook is failing or disabled: what happened and what to do (CONTRACT §6, the banner).
 * @param {Webhook} webhook
 */
function healthBanner(webhook) {
  const { health } = webhook;
  if (health.state === 'healthy') return null;
  if (health.state === 'failing') {
    return h(
      'div',
      { class: 'alert alert-error', role: 'status', id: 'health-banner' },
      h('strong', {}, 'Deliveries are failing. '),
      `Your server has not accepted a webhook since ${formatDateTime(/** @type {string} */ (health.failingSince))}. ` +
        'The delivery log below says why for each attempt. Fix the cause, then use “Send test” to check. ' +
        'A webhook that keeps failing is disabled automatically.',
    );
  }
  return h(
    'div',
    { class: 'alert alert-warn', role: 'status', id: 'health-banner' },
    h('strong', {}, DISABLED_HEADLINE[health.disabledReason ?? 'manual']),
    (health.disabledReason === 'gone'
      ? 'Your server said the address no longer exists, so nothing more was tried. If it is still in use, fix your ' +
        'server or enter the new URL, and use “Send test” to check. '
      : '') +
      'Nothing is sent to this webhook; each event is recorded in the log as not sent. ' +
      'When your server is ready, enable it again; the log keeps each event not sent, and its Resend sends it.',
  );
}

/**
 * One webhook: its settings, its secret, its log, and the buttons to test, edit and delete it.
 * @param {HTMLElement} main
 * @param {{ id: string, createdSecret?: string, onDeleted: () => void }} options `createdSecret`: the secret of a
 *   webhook just created, shown at once
 */
export async function webhookDetailView(main, { id, createdSecret, onDeleted }) {
  const [webhook, { data: integrations }, options] = await Promise.all([
    api.webhook(id),
    api.integrations(),
    api.options(),
  ]);
  const integration = integrations.find((item) => item.id === webhook.integrationId);
  const log = logPanel(webhook, { retentionMs: options.logRetentionMs, eventTypes: options.events });

  const testButton = h('button', { type: 'button', class: 'button', onclick: () => sendTest() }, 'Send test');
  const toggleButton = h(
    'button',
    { type: 'button', class: 'button button-secondary', onclick: () => toggle() },
    webhook.enabled ? 'Disable' : 'Enable',
  );
  async function toggle() {
    toggleButton.disabled = true;
    try {
      await api.updateWebhook(webhook.id, { enabled: !webhook.enabled });
      toast(webhook.enabled ? `“${webhook.name}” is disabled.` : `“${webhook.name}” is enabled again.`);
      await webhookDetailView(main, { id, onDeleted });
    } catch (error) {
      toast(/** @type {Error} */ (error).message);
      toggleButton.disabled = false;
    }
  }
  async function sendTest() {
    testButton.disabled = true;
    try {
      await log.sendAndWatch(() => api.sendTest(webhook.id), 'Test webhook sent.');
    } catch (error) {
      toast(/** @type {Error} */ (error).message);
    } finally {
      testButton.disabled = false;
    }
  }

  async function remove() {
    const confirmed = await confirmAction({
      title: `Delete “${webhook.name}”?`,
      text: 'Your server will stop receiving these webhooks right away, and the delivery log is deleted too.',
      confirmLabel: 'Delete webhook',
      danger: true,
    });
    if (!confirmed) return;
    await api.deleteWebhook(webhook.id);
    toast(`“${webhook.name}” was deleted.`);
    onDeleted();
  }

  render(
    main,
    h('a', { class: 'back', href: '#/' }, '← All webhooks'),
    h(
      'div',
      { class: 'page-head' },
      h('div', {}, h('h1', {}, webhook.name), h('div', { class: 'url' }, webhook.url)),
      h(
        'div',
        { class: 'actions' },
        testButton,
        toggleButton,
        h('a', { class: 'button button-secondary', href: `#/webhooks/${webhook.id}/edit` }, 'Edit'),
        h('button', { type: 'button', class: 'button button-danger', onclick: () => remove() }, 'Delete'),
      ),
    ),
    createdSecret
      ? h(
          'div',
          { class: 'alert alert-ok', role: 'status' },
          'Your webhook is ready. Copy the signing secret below into your shop system, then use “Send test” to check the connection.',
        )
      : null,
    healthBanner(webhook),
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'health-title' },
      h(
        'div',
        { class: 'card-head' },
        h('h2', { id: 'health-title' }, 'Health'),
        h(
          'span',
          { class: `chip chip-${healthChip(webhook.health).tone}`, 'data-health': webhook.health.state },
          healthChip(webhook.health).text,
        ),
      ),
      h(
        'dl',
        { class: 'summary' },
        h('dt', {}, 'Last delivered'),
        h('dd', {}, webhook.health.lastSuccessAt ? formatDateTime(webhook.health.lastSuccessAt) : 'Not yet'),
        webhook.health.failingSince ? h('dt', {}, 'Failing since') : null,
        webhook.health.failingSince ? h('dd', {}, formatDateTime(webhook.health.failingSince)) : null,
        h('dt', {}, 'Last 24 hours'),
        h('dd', {}, `${webhook.health.attempts24h} attempts, ${webhook.health.failures24h} failed`),
      ),
      webhook.enabled ? recoverPanel(webhook, { onSent: () => void log.reload() }) : null,
    ),
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'settings-title' },
      h('div', { class: 'card-head' }, h('h2', { id: 'settings-title' }, 'Settings')),
      h(
        'dl',
        { class: 'summary' },
        h('dt', {}, 'Events'),
        h('dd', {}, eventList(webhook.events, options.events)),
        h('dt', {}, 'Integration'),
        h('dd', {}, integration ? integration.name : 'All events (every integration)'),
        h('dt', {}, 'Format'),
        h('dd', {}, `${CONTENT_TYPE_LABELS[webhook.contentType]?.label ?? webhook.contentType}`),
        h('dt', {}, 'Version'),
        h('dd', {}, versionLabel(webhook.version, options.latestVersion)),
        h('dt', {}, 'Retry on error'),
        h('dd', {}, webhook.retryOnError ? `Yes — ${retrySchedule(options.retry)}` : 'No — one attempt only'),
        h('dt', {}, 'Rate limit'),
        h('dd', {}, webhook.maxPerSecond ? `At most ${webhook.maxPerSecond} a second` : 'No limit'),
        h('dt', {}, 'Outdated repeats'),
        h('dd', {}, webhook.skipSupersededRepeats ? 'Skipped once a newer status was delivered' : 'Sent'),
        h('dt', {}, 'Custom headers'),
        h(
          'dd',
          { id: 'wh-headers-summary' },
          webhook.headers.length === 0
            ? 'None'
            : h(
                'ul',
                {},
                // Values are never shown: only their last four characters.
                webhook.headers.map((header) => h('li', {}, h('code', {}, header.name), `: ••••${header.valueLast4}`)),
              ),
        ),
        h('dt', {}, 'Last changed'),
        h('dd', {}, formatDateTime(webhook.updatedAt)),
      ),
    ),
    secretPanel(webhook, { initialSecret: createdSecret, graceHours: options.rotationGraceHours }),
    log.element,
  );
  document.title = `${webhook.name} · Webhooks`;
  focusHeading(main);
  await log.reload();
}
