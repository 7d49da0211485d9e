/**
 * Tiny DOM helpers. Text is always set as text (never HTML), so nothing a server or user typed can run as code.
 */

/** h('button', { class: 'button', onclick: fn }, 'Save') */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') element.addEventListener(name.slice(2), value);
    else if (name === 'dataset') Object.assign(element.dataset, value);
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  append(element, children);
  return element;
}

function append(parent, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    parent.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces everything inside `element`. */
export function render(element, ...children) {
  element.replaceChildren();
  append(element, children);
  return element;
}

export const $ = (selector, root = document) => root.querySelector(selector);

let toastTimer;
/** A short, polite message (read out by screen readers). */
export function toast(message) {
  const element = $('#toast');
  element.textContent = message;
  element.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => (element.hidden = true), 5000);
}

/** Asks for confirmation in an accessible modal dialog; resolves true when confirmed. */
export function confirmAction({ title, text, confirmLabel, danger = false }) {
  const dialog = $('#confirm-dialog');
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

/** Moves focus to the page's main heading after a view change, for keyboard and screen-reader users. */
export function focusHeading(root) {
  const heading = root.querySelector('h1');
  if (heading) {
    heading.setAttribute('tabindex', '-1');
    heading.focus({ preventScroll: false });
  }
}
