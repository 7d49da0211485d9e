// @ts-check
import { api } from '../api.js';
import { confirmAction, focusHeading, h, render, toast } from '../dom.js';
import { CONTENT_TYPE_LABELS, eventList, formatDateTime, retrySchedule, versionLabel } from '../format.js';
import { logPanel } from './log-panel.js';
import { secretPanel } from './secret-panel.js';

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
  const log = logPanel(webhook, { retentionMs: options.logRetentionMs });

  const testButton = h('button', { type: 'button', class: 'button', onclick: () => sendTest() }, 'Send test');
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
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'settings-title' },
      h('div', { class: 'card-head' }, h('h2', { id: 'settings-title' }, 'Settings')),
      h(
        'dl',
        { class: 'summary' },
        h('dt', {}, 'Events'),
        h('dd', {}, eventList(webhook.events)),
        h('dt', {}, 'Integration'),
        h('dd', {}, integration ? integration.name : 'All events (every integration)'),
        h('dt', {}, 'Format'),
        h('dd', {}, `${CONTENT_TYPE_LABELS[webhook.contentType]?.label ?? webhook.contentType}`),
        h('dt', {}, 'Version'),
        h('dd', {}, versionLabel(webhook.version, options.latestVersion)),
        h('dt', {}, 'Retry on error'),
        h('dd', {}, webhook.retryOnError ? `Yes — ${retrySchedule(options.retry)}` : 'No — one attempt only'),
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
