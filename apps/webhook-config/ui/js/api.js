/**
 * The backend's REST API (/api). Sends the session cookie (same origin) and, on every mutating request, the
 * X-CSRF-Token the server gave at sign-in. Errors are RFC 9457 problems, thrown as ApiError.
 */
export class ApiError extends Error {
  constructor(status, problem) {
    super(problem?.detail || problem?.title || `Request failed (${status})`);
    this.status = status;
    this.problem = problem ?? {};
  }

  /** { field: firstMessage } for a validation problem. */
  get fieldErrors() {
    const errors = {};
    for (const { field, message } of this.problem.errors ?? []) errors[field] ??= message;
    return errors;
  }
}

let csrfToken = null;
let onSignedOut = () => {};

export const session = {
  set(token) {
    csrfToken = token;
  },
  clear() {
    csrfToken = null;
  },
  /** Called when the server says the session has ended (401 on a signed-in request). */
  onSignedOut(handler) {
    onSignedOut = handler;
  },
};

export async function request(method, path, body) {
  const headers = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && csrfToken) headers['x-csrf-token'] = csrfToken;
  const response = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'same-origin',
    cache: 'no-store',
  });
  const text = await response.text();
  const data = text ? safeJson(text) : null;
  if (!response.ok) {
    const error = new ApiError(response.status, data);
    if (response.status === 401 && csrfToken && path !== '/api/session') {
      csrfToken = null;
      onSignedOut('Your session has ended. Please sign in again.');
    }
    throw error;
  }
  return data;
}

function safeJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

export const api = {
  currentSession: () => request('GET', '/api/session'),
  signIn: (email, password) => request('POST', '/api/session', { email, password }),
  signOut: () => request('DELETE', '/api/session'),
  options: () => request('GET', '/api/webhook-options'),
  integrations: () => request('GET', '/api/integrations'),
  webhooks: () => request('GET', '/api/webhooks'),
  webhook: (id) => request('GET', `/api/webhooks/${encodeURIComponent(id)}`),
  createWebhook: (settings) => request('POST', '/api/webhooks', settings),
  updateWebhook: (id, settings) => request('PATCH', `/api/webhooks/${encodeURIComponent(id)}`, settings),
  deleteWebhook: (id) => request('DELETE', `/api/webhooks/${encodeURIComponent(id)}`),
  revealSecret: (id) => request('GET', `/api/webhooks/${encodeURIComponent(id)}/secret`),
  rotateSecret: (id) => request('POST', `/api/webhooks/${encodeURIComponent(id)}/secret/rotate`),
  logs: (id, { cursor, outcome, limit = 20 } = {}) => {
    const query = new URLSearchParams({ limit: String(limit) });
    if (cursor) query.set('cursor', cursor);
    if (outcome) query.set('outcome', outcome);
    return request('GET', `/api/webhooks/${encodeURIComponent(id)}/logs?${query}`);
  },
  sendTest: (id) => request('POST', `/api/webhooks/${encodeURIComponent(id)}/test`),
  resend: (id, logId) =>
    request('POST', `/api/webhooks/${encodeURIComponent(id)}/logs/${encodeURIComponent(logId)}/resend`),
};
