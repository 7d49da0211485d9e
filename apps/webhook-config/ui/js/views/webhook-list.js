// @ts-check
import { api } from '../api.js';
import { focusHeading, h, render } from '../dom.js';
import { CONTENT_TYPE_LABELS, eventList, formatDateTime, healthChip, versionLabel } from '../format.js';

/**
 * All webhooks of the merchant, or a friendly empty state.
 * @param {HTMLElement} main
 */
export async function webhookListView(main) {
  const [{ data: webhooks }, { data: integrations }, options, { data: notices }] = await Promise.all([
    api.webhooks(),
    api.integrations(),
    api.options(),
    api.notices(),
  ]);
  // The notices of webhooks that are still failing or disabled (a notice of one that recovered is old news).
  const current = notices.filter((notice) => {
    const webhook = webhooks.find((item) => item.id === notice.webhookId);
    return webhook && (notice.kind === 'disabled' ? !webhook.enabled : webhook.health.state === 'failing');
  });
  const integrationName = new Map(integrations.map((integration) => [integration.id, integration.name]));
  const addButton = h('a', { class: 'button', href: '#/new' }, 'Add webhook');

  render(
    main,
    h(
      'div',
      { class: 'page-head' },
      h(
        'div',
        {},
        h('h1', {}, 'Webhooks'),
        h('p', { class: 'lead' }, 'Webhooks send payment events to your shop or ERP the moment they happen.'),
      ),
      webhooks.length ? h('div', { class: 'actions' }, addButton) : null,
    ),
    current.map((notice) =>
      h(
        'div',
        { class: notice.kind === 'disabled' ? 'alert alert-warn' : 'alert alert-error', role: 'status' },
        h('strong', {}, h('a', { href: `#/webhooks/${notice.webhookId}` }, notice.webhookName)),
        notice.kind === 'disabled' && notice.reason === 'gone'
          ? ` was disabled: the URL answered 410 Gone at ${formatDateTime(notice.failingSince)}. Open it to fix the URL, then enable it again.`
          : notice.kind === 'disabled'
            ? ` was disabled: every attempt since ${formatDateTime(notice.failingSince)} failed. Open it to see why, then enable it again.`
            : ` is failing: no attempt since ${formatDateTime(notice.failingSince)} was accepted. Open it to see why.`,
      ),
    ),
    webhooks.length === 0
      ? h(
          'section',
          { class: 'card empty', 'aria-labelledby': 'empty-title' },
          h('div', { class: 'empty-mark', 'aria-hidden': 'true' }),
          h('h2', { id: 'empty-title' }, 'No webhooks yet'),
          h(
            'p',
            { class: 'muted' },
            'Add a webhook with the address your shop system gives you, and choose which events it should receive.',
          ),
          h('a', { class: 'button', href: '#/new' }, 'Add your first webhook'),
        )
      : h(
          'ul',
          { class: 'webhook-list', 'aria-label': 'Your webhooks' },
          webhooks.map((webhook) =>
            h(
              'li',
              { class: 'card webhook-item' },
              h(
                'div',
                {},
                h('h2', {}, h('a', { href: `#/webhooks/${webhook.id}` }, webhook.name)),
                h('div', { class: 'url' }, webhook.url),
                h(
                  'div',
                  { class: 'chips' },
                  h(
                    'span',
                    { class: `chip chip-${healthChip(webhook.health).tone}`, 'data-health': webhook.health.state },
                    healthChip(webhook.health).text,
                  ),
                  h('span', { class: 'chip chip-accent' }, eventList(webhook.events, options.events)),
                  h(
                    'span',
                    { class: 'chip' },
                    webhook.integrationId
                      ? `Only ${integrationName.get(webhook.integrationId) ?? 'one integration'}`
                      : 'All integrations',
                  ),
                  h('span', { class: 'chip' }, CONTENT_TYPE_LABELS[webhook.contentType]?.label ?? webhook.contentType),
                  h('span', { class: 'chip' }, `Version ${versionLabel(webhook.version, options.latestVersion)}`),
                  webhook.retryOnError ? null : h('span', { class: 'chip' }, 'No retries'),
                ),
              ),
              h(
                'div',
                { class: 'actions' },
                h(
                  'a',
                  {
                    class: 'button button-secondary button-small',
                    href: `#/webhooks/${webhook.id}`,
                    'aria-label': `Open ${webhook.name}`,
                  },
                  'Open',
                ),
              ),
            ),
          ),
        ),
  );
  document.title = 'Webhooks';
  focusHeading(main);
}
