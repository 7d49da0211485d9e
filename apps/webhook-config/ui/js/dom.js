// @ts-check
/**
 * Tiny DOM helpers. Text is always set as text (never HTML), so nothing a server or user typed can run as code.
 */

/**
 * Attributes of {@link h}: `on<event>` adds a listener, `dataset` fills data-*, `true` sets an empty attribute,
 * `undefined`, `null` and `false` leave it out, anything else is set as text.
 * @typedef {{ [name: `on${string}`]: (event: Event) => unknown } & { dataset?: Record<string, string> } &
 *   Record<string, unknown>} Attributes
 */

/** @typedef {Node | string | number | false | null | undefined} Leaf */
/**
 * What {@link h} and {@link render} take as children: nodes, text (numbers too), or lists of them; `undefined`,
 * `null` and `false` are skipped.
 * @typedef {Leaf | readonly Leaf[]} Child
 */

/**
 * h('button', { class: 'button', onclick: fn }, 'Save')
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Attributes} [attributes]
 * @param {...Child} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') {
      element.addEventListener(name.slice(2), /** @type {EventListener} */ (value));
    } else if (name === 'dataset') Object.assign(element.dataset, value);
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  append(element, children);
  return element;
}

/**
 * @param {Element} parent
 * @param {Child[]} children
 */
function append(parent, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    parent.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/**
 * Replaces everything inside `element`.
 * @template {Element} E
 * @param {E} element
 * @param {...Child} children
 * @returns {E}
 */
export function render(element, ...children) {
  element.replaceChildren();
  append(element, children);
  return element;
}

/**
 * The element `selector` names, which the page must have (index.html): a missing one is a bug, thrown at once.
 * @template {HTMLElement} [E=HTMLElement]
 * @param {string} selector
 * @param {ParentNode} [root]
 * @returns {E}
 */
export function $(selector, root = document) {
  const element = root.querySelector(selector);
  if (!element) throw new Error(`The page has no ${selector}`);
  return /** @type {E} */ (element);
}

/** @type {ReturnType<typeof setTimeout> | undefined} */
let toastTimer;
/**
 * A short, polite message (read out by screen readers).
 * @param {string} message
 */
export function toast(message) {
  const element = $('#toast');
  element.textContent = message;
  element.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => (element.hidden = true), 5000);
}

/**
 * Asks for confirmation in an accessible modal dialog; resolves true when confirmed.
 * @param {{ title: string, text: string, confirmLabel: string, danger?: boolean }} question
 * @returns {Promise<boolean>}
 */
export function confirmAction({ title, text, confirmLabel, danger = false }) {
  const dialog = /** @type {HTMLDialogElement} */ ($('#confirm-dialog'));
  $('#confirm-title').textContent = title;
  $('#confirm-text').textContent = text;
  const ok = $('#confirm-ok');
  ok.textContent = confirmLabel;
  ok.className = danger ? 'button button-danger' : 'button';
  dialog.returnValue = '';
  dialog.showModal();
  $('#confirm-cancel').focus();
  return new Promise((resolve) => {
    dialog.addEventListener('close', () => resolve(dialog.returnValue === 'confirm'), { once: true });
  });
}

/**
 * Moves focus to the page's main heading after a view change, for keyboard and screen-reader users.
 * @param {ParentNode} root
 */
export function focusHeading(root) {
  const heading = root.querySelector('h1');
  if (heading) {
    heading.setAttribute('tabindex', '-1');
    heading.focus({ preventScroll: false });
  }
}
