// @ts-check
// Requests to the merchant backend (webhook-config), which is all the command line talks to (docs/cli-protocol.md).

/** An error to print as `payments: <message>` and exit with 1. Its message never holds the API key. */
export class CliError extends Error {}

export const DEFAULT_BACKEND_URL = 'http://127.0.0.1:3001';
const REQUEST_TIMEOUT_MS = 30_000;

/** @param {NodeJS.ProcessEnv} env the backend's base URL, without a trailing slash */
export function backendUrl(env) {
  return (env.PAYMENTS_BACKEND_URL || DEFAULT_BACKEND_URL).replace(/\/+$/, '');
}

/**
 * POSTs JSON with the API key; answers the parsed body of a 2xx, throws a CliError otherwise.
 * @param {string} base the backend's URL
 * @param {string} apiKey
 * @param {string} path e.g. /api/cli/sessions
 * @param {unknown} body
 * @returns {Promise<any>}
 */
export async function postJson(base, apiKey, path, body) {
  let response;
  try {
    response = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
  } catch (error) {
    throw new CliError(
      `cannot reach the payments backend at ${base} (${reasonOf(error)}). ` +
        'Is webhook-config running? PAYMENTS_BACKEND_URL names its address.',
    );
  }
  const text = await response.text().catch(() => '');
  /** @type {any} */
  let parsed;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = null;
  }
  if (response.ok) return parsed;
  throw new CliError(redact(problemText(parsed, response.status), apiKey));
}

/**
 * The problem's detail (RFC 9457), with the field messages of a validation problem.
 * @param {any} problem
 * @param {number} status
 */
function problemText(problem, status) {
  if (!problem || typeof problem !== 'object') return `the backend answered HTTP ${status}`;
  const text = String(problem.detail || problem.title || `the backend answered HTTP ${status}`);
  const errors = Array.isArray(problem.errors)
    ? problem.errors.map((/** @type {any} */ e) => `${e?.field}: ${e?.message}`).filter(Boolean)
    : [];
  return errors.length > 0 ? `${text} (${errors.join('; ')})` : text;
}

/**
 * Why a request got no answer: the system's error code and message (ECONNREFUSED, ENOTFOUND, a timeout).
 * @param {unknown} error
 */
export function reasonOf(error) {
  /** @type {any} */
  const e = error;
  if (e?.name === 'TimeoutError') return `no answer within ${REQUEST_TIMEOUT_MS / 1000} s`;
  const cause = e?.cause ?? e;
  const code = cause?.code;
  const message = cause?.message || e?.message || String(error);
  return code && !String(message).includes(code) ? `${code}: ${message}` : String(message);
}

/**
 * Replaces the API key wherever it appears (a message echoing a request, say): the key is never printed.
 * @param {string} text
 * @param {string} apiKey
 */
export function redact(text, apiKey) {
  return apiKey ? text.split(apiKey).join('pk_…') : text;
}
