// @ts-check
import { api, ApiError } from '../api.js';
import { focusHeading, h, render, toast } from '../dom.js';
import { CONTENT_TYPE_LABELS, retrySchedule, versionLabel } from '../format.js';

/** @typedef {import('../api.js').Schemas} Schemas */
/** @typedef {import('../api.js').WebhookSettings} WebhookSettings */
/** @typedef {Exclude<keyof WebhookSettings, 'headers'>} Field the settings with one control (headers have their editor) */
/** @typedef {Schemas['WebhookDoc'] & { secret?: string }} SavedWebhook the webhook as saved; with its secret when created */

/**
 * How each API field is called on the page, and which control shows its error.
 * @type {Record<Field, { label: string, control: string }>}
 */
const FIELDS = {
  name: { label: 'Name', control: 'wh-name' },
  url: { label: 'URL', control: 'wh-url' },
  events: { label: 'Events', control: 'wh-event-transaction' },
  integrationId: { label: 'Integration', control: 'wh-integration' },
  contentType: { label: 'Format', control: 'wh-content-type-json' },
  version: { label: 'Version', control: 'wh-version' },
  retryOnError: { label: 'Retry setting', control: 'wh-retry' },
  maxPerSecond: { label: 'Rate limit', control: 'wh-max-per-second' },
  skipSupersededRepeats: { label: 'Outdated repeats', control: 'wh-skip-superseded' },
  // Enabled and disabled on the webhook's page (its buttons), not in this form.
  enabled: { label: 'Enabled', control: 'wh-name' },
};

/**
 * Whether the server's `errors[].field` is a setting of this form.
 * @param {string} field
 * @returns {field is Field}
 */
const isField = (field) => Object.hasOwn(FIELDS, field);

/**
 * The create form (no `id`) or the edit form of one webhook, with every setting of a webhook.
 * @param {HTMLElement} main
 * @param {{ id?: string, onSaved: (saved: SavedWebhook) => void }} options
 */
export async function webhookFormView(main, { id, onSaved }) {
  const [options, { data: integrations }, existing] = await Promise.all([
    api.options(),
    api.integrations(),
    id ? api.webhook(id) : null,
  ]);
  /** @type {Omit<Required<WebhookSettings>, 'headers'>} */
  const values = existing ?? {
    name: '',
    url: '',
    events: ['transaction'],
    integrationId: null,
    contentType: 'json',
    version: options.latestVersion,
    retryOnError: true,
    enabled: true,
    maxPerSecond: null,
    skipSupersededRepeats: true,
  };

  /** @type {Partial<Record<Field, HTMLParagraphElement>>} */
  const errorSlots = {};
  /** @param {Field} field */
  const errorFor = (field) =>
    (errorSlots[field] = h('p', { class: 'field-error', id: `wh-${field}-error`, hidden: true }));
  const summary = h('div', { class: 'alert alert-error', role: 'alert', tabindex: '-1', hidden: true });

  const name = h('input', {
    id: 'wh-name',
    type: 'text',
    value: values.name,
    maxlength: '200',
    autocomplete: 'off',
    'aria-describedby': 'wh-name-hint wh-name-error',
  });
  const url = h('input', {
    id: 'wh-url',
    type: 'url',
    value: values.url,
    inputmode: 'url',
    autocomplete: 'off',
    spellcheck: 'false',
    placeholder: 'https://shop.example/webhooks/payments',
    'aria-describedby': 'wh-url-hint wh-url-error',
  });
  const eventBoxes = options.events.map(({ type }) =>
    h('input', {
      type: 'checkbox',
      id: `wh-event-${type}`,
      name: 'events',
      value: type,
      checked: values.events.includes(type),
      'aria-describedby': `wh-event-${type}-hint`,
    }),
  );
  const integration = h(
    'select',
    { id: 'wh-integration', 'aria-describedby': 'wh-integration-hint wh-integrationId-error' },
    h('option', { value: '' }, 'All events (every integration)'),
    integrations.map((item) => h('option', { value: item.id, selected: item.id === values.integrationId }, item.name)),
  );
  const contentTypeRadios = options.contentTypes.map((type) =>
    h('input', {
      type: 'radio',
      id: `wh-content-type-${type}`,
      name: 'contentType',
      value: type,
      checked: values.contentType === type,
      'aria-describedby': `wh-content-type-${type}-hint`,
    }),
  );
  const version = h(
    'select',
    { id: 'wh-version', 'aria-describedby': 'wh-version-hint wh-version-error' },
    [...options.versions]
      .reverse()
      .map((v) => h('option', { value: v, selected: v === values.version }, versionLabel(v, options.latestVersion))),
  );
  const retry = h('input', {
    type: 'checkbox',
    id: 'wh-retry',
    checked: values.retryOnError,
    'aria-describedby': 'wh-retry-hint wh-retryOnError-error',
  });
  const maxPerSecond = h('input', {
    id: 'wh-max-per-second',
    type: 'number',
    min: '1',
    max: '1000',
    step: '1',
    inputmode: 'numeric',
    placeholder: 'No limit',
    value: values.maxPerSecond === null ? '' : String(values.maxPerSecond),
    'aria-describedby': 'wh-max-per-second-hint wh-maxPerSecond-error',
  });
  const skipSuperseded = h('input', {
    type: 'checkbox',
    id: 'wh-skip-superseded',
    checked: values.skipSupersededRepeats,
    'aria-describedby': 'wh-skip-superseded-hint wh-skipSupersededRepeats-error',
  });
  const headers = headerEditor(existing?.headers ?? []);
  const submit = h('button', { type: 'submit', class: 'button' }, id ? 'Save changes' : 'Create webhook');

  const form = h(
    'form',
    { class: 'form', novalidate: true, onsubmit: (event) => save(event) },
    summary,
    h(
      'div',
      { class: 'form-grid' },
      h(
        'div',
        { class: 'field' },
        h('label', { for: 'wh-name' }, 'Name'),
        h('p', { class: 'hint', id: 'wh-name-hint' }, 'Only for you, e.g. “Shop orders”.'),
        name,
        errorFor('name'),
      ),
      h(
        'div',
        { class: 'field' },
        h('label', { for: 'wh-integration' }, 'Link to integration'),
        h(
          'p',
          { class: 'hint', id: 'wh-integration-hint' },
          'Only events of this integration. Payouts belong to no integration.',
        ),
        integration,
        errorFor('integrationId'),
      ),
    ),
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'wh-url' }, 'URL'),
      h(
        'p',
        { class: 'hint', id: 'wh-url-hint' },
        'The address your shop system gives you for payment webhooks. Must start with https:// (or http://), ' +
          'without a user name or password; its port, if any, 80, 443 or 1024–65535.',
      ),
      url,
      errorFor('url'),
    ),
    h(
      'fieldset',
      { id: 'wh-events', 'aria-describedby': 'wh-events-error' },
      h('legend', {}, 'Events to send'),
      options.events.map(({ type, label, hint }, i) =>
        h(
          'div',
          { class: 'choice' },
          eventBoxes[i],
          h('label', { for: `wh-event-${type}` }, label),
          h('p', { class: 'hint', id: `wh-event-${type}-hint` }, hint),
        ),
      ),
      errorFor('events'),
    ),
    h(
      'div',
      { class: 'form-grid' },
      h(
        'fieldset',
        { id: 'wh-content-type', 'aria-describedby': 'wh-contentType-error' },
        h('legend', {}, 'Format (content type)'),
        options.contentTypes.map((type, i) =>
          h(
            'div',
            { class: 'choice' },
            contentTypeRadios[i],
            h('label', { for: `wh-content-type-${type}` }, CONTENT_TYPE_LABELS[type]?.label ?? type),
            h('p', { class: 'hint', id: `wh-content-type-${type}-hint` }, CONTENT_TYPE_LABELS[type]?.hint ?? ''),
          ),
        ),
        errorFor('contentType'),
      ),
      h(
        'div',
        { class: 'form' },
        h(
          'div',
          { class: 'field' },
          h('label', { for: 'wh-version' }, 'Version'),
          h(
            'p',
            { class: 'hint', id: 'wh-version-hint' },
            'The shape of the data. The newest adds 3-D Secure details to transactions.',
          ),
          version,
          errorFor('version'),
        ),
        h(
          'div',
          { class: 'field' },
          h(
            'div',
            { class: 'choice' },
            retry,
            h('label', { for: 'wh-retry' }, 'Retry on error'),
            h(
              'p',
              { class: 'hint', id: 'wh-retry-hint' },
              `If your server does not confirm a webhook, send it again ${retrySchedule(options.retry)}.`,
            ),
          ),
          errorFor('retryOnError'),
        ),
      ),
    ),
    h(
      'div',
      { class: 'form-grid' },
      h(
        'div',
        { class: 'field' },
        h('label', { for: 'wh-max-per-second' }, 'Rate limit (requests per second)'),
        h(
          'p',
          { class: 'hint', id: 'wh-max-per-second-hint' },
          'At most this many webhooks a second reach your server (1–1000); more wait their turn, none is lost. ' +
            'Empty: no limit.',
        ),
        maxPerSecond,
        errorFor('maxPerSecond'),
      ),
      h(
        'div',
        { class: 'field' },
        h(
          'div',
          { class: 'choice' },
          skipSuperseded,
          h('label', { for: 'wh-skip-superseded' }, 'Skip outdated repeats'),
          h(
            'p',
            { class: 'hint', id: 'wh-skip-superseded-hint' },
            'Once a newer status of a payment reached your server, older ones are not repeated (shop systems ' +
              'answer an outdated status with an error).',
          ),
        ),
        errorFor('skipSupersededRepeats'),
      ),
    ),
    headers.element,
    h(
      'div',
      { class: 'form-actions' },
      submit,
      h('a', { class: 'button button-secondary', href: id ? `#/webhooks/${id}` : '#/' }, 'Cancel'),
    ),
  );

  /** @param {Event} event */
  async function save(event) {
    event.preventDefault();
    clearErrors();
    // The boxes, radios and options were made from the server's choices: their values are among them.
    /** @type {Omit<Required<WebhookSettings>, 'headers'>} */
    const settings = {
      name: name.value,
      url: url.value,
      events: /** @type {WebhookSettings['events']} */ (
        eventBoxes.filter((box) => box.checked).map((box) => box.value)
      ),
      integrationId: integration.value || null,
      contentType: /** @type {Required<WebhookSettings>['contentType']} */ (
        contentTypeRadios.find((radio) => radio.checked)?.value ?? 'json'
      ),
      version: /** @type {Required<WebhookSettings>['version']} */ (version.value),
      retryOnError: retry.checked,
      // Unchanged here: the webhook's page enables and disables it.
      enabled: values.enabled,
      // Empty: no limit; anything else is the server's to check (a clear message beside the field).
      maxPerSecond: maxPerSecond.value.trim() === '' ? null : Number(maxPerSecond.value),
      skipSupersededRepeats: skipSuperseded.checked,
    };
    submit.disabled = true;
    try {
      // A header left without a new value keeps its stored one (PATCH only; a new header always has a value).
      const list = headers.entries();
      const saved = id
        ? await api.updateWebhook(id, { ...settings, headers: list })
        : await api.createWebhook({
            ...settings,
            headers: list.map(({ name, value }) => ({ name, value: value ?? '' })),
          });
      toast(id ? 'Changes saved.' : 'Webhook created.');
      onSaved(saved);
    } catch (error) {
      if (error instanceof ApiError && error.status === 400 && error.problem.errors) showErrors(error.problem.errors);
      else showSummary([error instanceof ApiError ? error.message : 'Saving did not work. Please try again.']);
    } finally {
      submit.disabled = false;
    }
  }

  function clearErrors() {
    summary.hidden = true;
    for (const field of /** @type {Field[]} */ (Object.keys(errorSlots))) {
      const slot = /** @type {HTMLParagraphElement} */ (errorSlots[field]);
      slot.hidden = true;
      slot.textContent = '';
      document.getElementById(FIELDS[field].control)?.removeAttribute('aria-invalid');
    }
    document.getElementById('wh-events')?.removeAttribute('aria-invalid');
    headers.clearErrors();
  }

  /** @param {Schemas['FieldErrorDoc'][]} errors */
  function showErrors(errors) {
    const shown = new Set();
    /** @type {{ field: string, text: string }[]} */
    const lines = [];
    for (const { field, message } of errors) {
      if (shown.has(field)) continue;
      shown.add(field);
      const header = headers.showError(field, message);
      if (header) {
        lines.push(header);
        continue;
      }
      const text = isField(field) ? `${FIELDS[field].label} ${message}.`.replace(/\.\.$/, '.') : message;
      lines.push({ field, text });
      const slot = isField(field) ? errorSlots[field] : undefined;
      if (!isField(field) || !slot) continue;
      slot.textContent = text;
      slot.hidden = false;
      document.getElementById(FIELDS[field].control)?.setAttribute('aria-invalid', 'true');
      if (field === 'events') document.getElementById('wh-events')?.setAttribute('aria-invalid', 'true');
    }
    showSummary(lines);
    const first = lines.map((line) => line.field).find(isField);
    if (first) document.getElementById(FIELDS[first].control)?.focus();
    else if (lines[0]) document.getElementById(headers.controlOf(lines[0].field) ?? '')?.focus();
  }

  /** @param {(string | { field: string, text: string })[]} lines */
  function showSummary(lines) {
    render(
      summary,
      h('strong', {}, lines.length === 1 ? 'Please correct this:' : 'Please correct these:'),
      h(
        'ul',
        {},
        lines.map((line) => {
          const text = typeof line === 'string' ? line : line.text;
          const control =
            typeof line === 'string'
              ? null
              : isField(line.field)
                ? FIELDS[line.field].control
                : headers.controlOf(line.field);
          return control === null
            ? h('li', {}, text)
            : h(
                'li',
                {},
                h(
                  'a',
                  {
                    href: `#${control}`,
                    onclick: (event) => (event.preventDefault(), document.getElementById(control)?.focus()),
                  },
                  text,
                ),
              );
        }),
      ),
    );
    summary.hidden = false;
    if (typeof lines[0] === 'string') summary.focus();
  }

  render(
    main,
    h('a', { class: 'back', href: id ? `#/webhooks/${id}` : '#/' }, id ? '← Back to the webhook' : '← All webhooks'),
    h(
      'div',
      { class: 'page-head' },
      h(
        'div',
        {},
        h('h1', {}, id ? `Edit “${values.name}”` : 'Add a webhook'),
        h('p', { class: 'lead' }, 'Every setting can be changed later.'),
      ),
    ),
    h('section', { class: 'card', 'aria-label': 'Webhook settings' }, form),
  );
  document.title = id ? `Edit ${values.name} · Webhooks` : 'Add a webhook · Webhooks';
  focusHeading(main);
  if (location.hash === '#/new') name.focus();
}

/** The most custom headers a webhook may have (CONTRACT §5). */
const MAX_HEADERS = 10;

/**
 * The custom headers of the form: a row per header (name, value, Remove) and "Add header". A stored header's value is
 * never shown: its field is empty, with the last four characters as a hint; left empty it keeps the stored value,
 * anything typed replaces it.
 * @param {Schemas['WebhookHeaderDoc'][]} stored
 */
function headerEditor(stored) {
  /** @type {{ row: HTMLElement, name: HTMLInputElement, value: HTMLInputElement, stored: boolean, error: HTMLParagraphElement }[]} */
  const rows = [];
  let next = 0;
  const list = h('div', { class: 'header-rows' });
  const add = h('button', { type: 'button', class: 'button button-secondary', id: 'wh-header-add' }, 'Add header');
  const count = () => {
    add.disabled = rows.length >= MAX_HEADERS;
    empty.hidden = rows.length > 0;
  };
  const empty = h('p', { class: 'hint' }, 'No custom headers.');

  /** @param {{ name: string, valueLast4?: string } | null} header */
  const addRow = (header) => {
    const n = next++;
    const name = h('input', {
      id: `wh-header-${n}-name`,
      type: 'text',
      value: header?.name ?? '',
      maxlength: '100',
      autocomplete: 'off',
      spellcheck: 'false',
      placeholder: 'X-Api-Key',
      'aria-label': 'Header name',
    });
    const value = h('input', {
      id: `wh-header-${n}-value`,
      type: 'password',
      value: '',
      maxlength: '1024',
      autocomplete: 'new-password',
      spellcheck: 'false',
      placeholder: header ? `Unchanged (ends in ${header.valueLast4 || '…'})` : 'Value',
      'aria-label': header ? `Value of ${header.name} (empty: unchanged)` : 'Header value',
    });
    const error = h('p', { class: 'field-error', hidden: true });
    const entry = { row: h('div'), name, value, stored: header !== null, error };
    const remove = h(
      'button',
      {
        type: 'button',
        class: 'button button-secondary',
        'aria-label': `Remove header ${header?.name ?? ''}`.trim(),
        onclick: () => {
          rows.splice(rows.indexOf(entry), 1);
          entry.row.remove();
          count();
          add.focus();
        },
      },
      'Remove',
    );
    entry.row = h('div', { class: 'header-row', dataset: { header: header?.name ?? '' } }, name, value, remove, error);
    rows.push(entry);
    list.append(entry.row);
    count();
    return entry;
  };
  for (const header of stored) addRow(header);
  add.addEventListener('click', () => addRow(null).name.focus());

  const element = h(
    'fieldset',
    { id: 'wh-headers' },
    h('legend', {}, 'Custom headers'),
    h(
      'p',
      { class: 'hint', id: 'wh-headers-hint' },
      `Sent with every webhook, e.g. an API key your server checks (at most ${MAX_HEADERS}). Values are stored ` +
        'encrypted and shown only by their last four characters. Names the platform sets itself (Content-Type, ' +
        'User-Agent, Webhook-…) are not possible.',
    ),
    empty,
    list,
    add,
  );
  count();

  /** @param {string} field e.g. `headers.2.name` */
  const partOf = (field) => {
    const match = /^headers(?:\.(\d+)(?:\.(name|value))?)?$/.exec(field);
    if (!match) return null;
    const index = match[1] === undefined ? null : Number(match[1]);
    return { index, part: match[2] ?? 'name', entry: index === null ? rows[0] : rows[index] };
  };

  return {
    element,
    /** The list to send: a stored header whose value field is empty keeps its value (no `value`). */
    entries: () =>
      rows.map((entry) =>
        entry.stored && entry.value.value === ''
          ? { name: entry.name.value.trim() }
          : { name: entry.name.value.trim(), value: entry.value.value },
      ),
    clearErrors: () => {
      for (const entry of rows) {
        entry.error.hidden = true;
        entry.error.textContent = '';
        entry.name.removeAttribute('aria-invalid');
        entry.value.removeAttribute('aria-invalid');
      }
    },
    /**
     * Shows a problem of a header beside it; the summary line, or null when the field is not a header's.
     * @param {string} field
     * @param {string} message
     */
    showError: (field, message) => {
      const where = partOf(field);
      if (!where) return null;
      const label = where.index === null ? 'Custom headers' : `Header ${where.index + 1} ${where.part}`;
      const text = `${label}: ${message}`;
      if (where.entry) {
        where.entry.error.textContent = text;
        where.entry.error.hidden = false;
        where.entry[where.part === 'value' ? 'value' : 'name'].setAttribute('aria-invalid', 'true');
      }
      return { field, text };
    },
    /** @param {string} field */
    controlOf: (field) => {
      const where = partOf(field);
      if (!where?.entry) return where ? 'wh-header-add' : null;
      return where.entry[where.part === 'value' ? 'value' : 'name'].id;
    },
  };
}
