// @ts-check
// One POST of an event's request to the local URL: the body and headers exactly as the server gave them (node:http
// adds only host, content-length and connection, as the dispatcher's client does; fetch would add accept,
// accept-language, sec-fetch-mode, accept-encoding and its own user-agent). Redirects are not followed. Never retried.
import http from 'node:http';
import https from 'node:https';
import { seconds } from './output.js';

/** @typedef {{ status: number, durationMs: number, error: string | null }} ForwardResult */

const agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };

/**
 * @param {string} url
 * @param {{ headers: Record<string, string>, body: string }} request
 * @param {number} timeoutMs no complete response within this time → status 0
 * @returns {Promise<ForwardResult>}
 */
export function forward(url, request, timeoutMs) {
  const started = performance.now();
  const body = Buffer.from(request.body ?? '', 'utf8');
  const headers = { ...request.headers };
  if (!Object.keys(headers).some((name) => name.toLowerCase() === 'content-length')) {
    headers['content-length'] = String(body.length);
  }
  const target = new URL(url);
  const client = target.protocol === 'https:' ? https : http;
  const agent = target.protocol === 'https:' ? agents.https : agents.http;

  return new Promise((resolve) => {
    let settled = false;
    /** @param {number} status @param {string | null} error */
    const done = (status, error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ status, durationMs: Math.round(performance.now() - started), error });
    };
    /** @type {import('node:http').ClientRequest} */
    let req;
    const timer = setTimeout(() => {
      done(0, `timed out after ${seconds(timeoutMs)}`);
      req.destroy();
    }, timeoutMs);
    try {
      req = client.request(target, { method: 'POST', headers, agent }, (res) => {
        res.on('error', (error) => done(0, errorText(error)));
        res.on('aborted', () => done(0, 'the response was cut off'));
        // A complete response: its body read to the end (and thrown away).
        res.on('end', () => done(res.statusCode ?? 0, null));
        res.resume();
      });
    } catch (error) {
      // An invalid header value, for example: nothing was sent.
      done(0, errorText(error));
      return;
    }
    req.on('error', (error) => done(0, errorText(error)));
    req.end(body);
  });
}

/** @param {unknown} error */
function errorText(error) {
  /** @type {any} */
  const e = error;
  const message = String(e?.message || e);
  return e?.code && !message.includes(e.code) ? `${e.code}: ${message}` : message;
}
