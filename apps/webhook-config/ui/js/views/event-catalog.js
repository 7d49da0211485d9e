// @ts-check
import { api } from '../api.js';
import { focusHeading, h, render, toast } from '../dom.js';
import { CONTENT_TYPE_LABELS, versionLabel } from '../format.js';

/** @typedef {import('../api.js').Schemas} Schemas */
/** @typedef {Schemas['CatalogKindDoc']} CatalogKind */
/** @typedef {Schemas['CatalogVersionDoc']} CatalogVersion */
/** @typedef {Schemas['CatalogEncodingDoc']} CatalogEncoding */
/** @typedef {Schemas['WebhookDoc']} Webhook */

/**
 * The event catalog ("Events"): every kind of event with its event types and, per payload version, the example as
 * each content type sends it (JSON, and the PHP form post one pair a line), its JSON Schema, and "Send this example"
 * to one of the merchant's webhooks that receives the kind. Everything comes from GET /api/event-types: nothing about
 * the kinds, versions or payloads is written here.
 * @param {HTMLElement} main
 */
export async function eventCatalogView(main) {
  const [{ data: kinds }, { data: webhooks }] = await Promise.all([api.eventTypes(), api.webhooks()]);
  render(
    main,
    h(
      'div',
      { class: 'page-head' },
      h(
        'div',
        {},
        h('h1', {}, 'Events'),
        h(
          'p',
          { class: 'lead' },
          'What each kind of event sends to your webhooks, in every payload version and content type, with its ' +
            'JSON Schema. Send an example to one of your webhooks to try your server.',
        ),
      ),
    ),
    h(
      'nav',
      { class: 'card catalog-toc', 'aria-label': 'Kinds of event' },
      h(
        'ul',
        {},
        kinds.map((kind) =>
          h('li', {}, h('a', { href: `#/events`, dataset: { kind: kind.kind }, onclick: jump }, kind.label)),
        ),
      ),
    ),
    kinds.map((kind) => kindSection(kind, webhooks)),
  );
  focusHeading(main);
}

/**
 * Scrolls to a kind's section (the hash stays the route).
 * @param {Event} event
 */
function jump(event) {
  event.preventDefault();
  const kind = /** @type {HTMLElement} */ (event.currentTarget).dataset.kind;
  document.getElementById(`kind-${kind}`)?.scrollIntoView({ block: 'start' });
}

/**
 * @param {CatalogKind} kind
 * @param {Webhook[]} webhooks
 */
function kindSection(kind, webhooks) {
  const titleId = `kind-${kind.kind}-title`;
  return h(
    'section',
    { class: 'card catalog-kind', id: `kind-${kind.kind}`, 'aria-labelledby': titleId, dataset: { kind: kind.kind } },
    h('div', { class: 'card-head' }, h('h2', { id: titleId }, kind.label)),
    h('p', { class: 'muted' }, kind.hint),
    h(
      'p',
      {},
      'Event types: ',
      kind.types.flatMap((type, i) => [i ? ', ' : '', h('code', {}, type)]),
      '. Each sends the same payload: the object as it is after the event.',
    ),
    kind.versions
      .slice()
      .reverse()
      .map((version) => versionBlock(kind, version)),
    sendExample(kind, webhooks),
  );
}

/**
 * One payload version: the example per content type, and the schema.
 * @param {CatalogKind} kind
 * @param {CatalogVersion} version
 */
function versionBlock(kind, version) {
  const latest = kind.versions.find((item) => item.latest)?.version ?? version.version;
  return h(
    'details',
    { class: 'catalog-version', open: version.latest, dataset: { version: version.version } },
    h('summary', {}, `Version ${versionLabel(version.version, latest)}`),
    version.encodings.map((encoding) => encodingBlock(kind, version, encoding)),
    h(
      'details',
      { class: 'catalog-schema' },
      h('summary', {}, 'JSON Schema'),
      h(
        'pre',
        { class: 'code-block', 'aria-label': `JSON Schema of ${kind.kind} events, version ${version.version}` },
        JSON.stringify(version.schema, null, 2),
      ),
    ),
  );
}

/**
 * The example in one content type: JSON indented for reading (it is sent compact), a form post one pair a line,
 * decoded (it is sent as one line, percent-encoded: the exact body is below it).
 * @param {CatalogKind} kind
 * @param {CatalogVersion} version
 * @param {CatalogEncoding} encoding
 */
function encodingBlock(kind, version, encoding) {
  const label = CONTENT_TYPE_LABELS[encoding.contentType]?.label ?? encoding.contentType;
  const what = `${label} example of ${kind.kind} events, version ${version.version}`;
  const json = encoding.contentType === 'json';
  return h(
    'figure',
    { class: 'catalog-example', dataset: { contentType: encoding.contentType } },
    h('figcaption', {}, h('strong', {}, label), ' ', h('span', { class: 'muted small' }, encoding.mediaType)),
    h(
      'pre',
      { class: 'code-block', 'aria-label': what },
      json ? JSON.stringify(version.example, null, 2) : formLines(encoding.body),
    ),
    json
      ? h('p', { class: 'hint' }, 'Sent compact, without the spaces and line breaks shown here.')
      : h(
          'details',
          {},
          h('summary', { class: 'hint' }, 'One pair a line, decoded. The exact body (one line, percent-encoded)'),
          h('pre', { class: 'code-block', 'aria-label': `Exact body: ${what}` }, encoding.body),
        ),
  );
}

/**
 * A form body one `name=value` pair a line, names and values decoded: what PHP reads into $_POST.
 * @param {string} body
 */
function formLines(body) {
  const decode = (/** @type {string} */ text) => decodeURIComponent(text.replaceAll('+', ' '));
  return body
    .split('&')
    .map((pair) => {
      const at = pair.indexOf('=');
      return at < 0 ? decode(pair) : `${decode(pair.slice(0, at))}=${decode(pair.slice(at + 1))}`;
    })
    .join('\n');
}

/**
 * "Send this example": to a webhook that receives this kind, in that webhook's version and content type.
 * @param {CatalogKind} kind
 * @param {Webhook[]} webhooks
 */
function sendExample(kind, webhooks) {
  const receiving = webhooks.filter((webhook) => webhook.events.includes(kind.kind));
  const heading = h('h3', {}, 'Send this example');
  if (receiving.length === 0) {
    return h(
      'div',
      { class: 'catalog-send' },
      heading,
      h(
        'p',
        { class: 'muted' },
        `None of your webhooks receives ${kind.label.toLowerCase()}. `,
        h('a', { href: '#/new' }, 'Add a webhook'),
        ' or edit one to receive them, then send the example here.',
      ),
    );
  }
  const selectId = `send-${kind.kind}-webhook`;
  const select = h(
    'select',
    { id: selectId, name: 'webhook' },
    receiving.map((webhook) =>
      h(
        'option',
        { value: webhook.id },
        `${webhook.name} (${webhook.version}, ${CONTENT_TYPE_LABELS[webhook.contentType]?.label ?? webhook.contentType}` +
          `${webhook.enabled ? '' : ', disabled'})`,
      ),
    ),
  );
  const outcome = h('p', { class: 'small', role: 'status' });
  const button = h('button', { type: 'submit', class: 'button' }, 'Send this example');
  return h(
    'form',
    {
      class: 'catalog-send',
      onsubmit: async (/** @type {Event} */ event) => {
        event.preventDefault();
        const webhook = receiving.find((item) => item.id === select.value);
        if (!webhook) return;
        button.disabled = true;
        try {
          await api.sendTest(webhook.id, kind.kind);
          render(
            outcome,
            'Sent to ',
            h('a', { href: `#/webhooks/${webhook.id}` }, webhook.name),
            ` as version ${webhook.version}, ${CONTENT_TYPE_LABELS[webhook.contentType]?.label ?? webhook.contentType}. ` +
              'Its delivery log shows the outcome.',
          );
          toast('Example sent.');
        } catch (error) {
          render(outcome, /** @type {Error} */ (error).message);
        } finally {
          button.disabled = false;
        }
      },
    },
    heading,
    h(
      'p',
      { class: 'hint' },
      'The example goes to the webhook now, once, in the webhook’s own version and content type and signed like ' +
        'every delivery, with an id and time of its own (and the reference “webhook-test” where the event has one), ' +
        'so your server can tell it from real events.',
    ),
    h('div', { class: 'field' }, h('label', { for: selectId }, 'Webhook'), select),
    h('div', { class: 'actions' }, button),
    outcome,
  );
}
