// @ts-check
// `payments listen`: a session (POST /api/cli/sessions), then its WebSocket stream; every event is POSTed to the
// local URL and its result sent back; a dropped connection is reconnected to the same session (docs/cli-protocol.md).
import { backendUrl, CliError, postJson, reasonOf, redact } from './backend.js';
import { forward } from './forward.js';
import { eventLine, readyLine, seconds } from './output.js';

const FIRST_DELAY_MS = 500;
const MAX_DELAY_MS = 10_000;
/** How many forwarded ids are remembered, to answer a redelivery with the first result. */
const REMEMBERED_IDS = 1000;

/**
 * @typedef {{ out: (line: string) => void, err: (line: string) => void }} Io
 * @typedef {import('./forward.js').ForwardResult} ForwardResult
 */

/**
 * @param {import('./args.js').ListenCommand} command
 * @param {NodeJS.ProcessEnv} env
 * @param {Io} io
 * @returns {Promise<number>} the exit code, once the session is over
 */
export async function listen(command, env, io) {
  const base = backendUrl(env);
  /** @type {Record<string, unknown>} */
  const body = { forwardTo: command.forwardTo };
  if (command.events) body.events = command.events;
  if (command.version) body.version = command.version;
  if (command.contentType) body.contentType = command.contentType;
  const session = await postJson(base, command.apiKey, '/api/cli/sessions', body);
  if (!session || typeof session.id !== 'string') throw new CliError('the backend answered without a session');

  const streamUrl = new URL(`${base}/api/cli/sessions/${encodeURIComponent(session.id)}/stream`);
  streamUrl.protocol = streamUrl.protocol === 'https:' ? 'wss:' : 'ws:';

  /** Results by id, also while the forward is in flight; the oldest forgotten first. @type {Map<string, Promise<ForwardResult>>} */
  const results = new Map();
  /** @type {WebSocket | null} */
  let socket = null;
  let readyOnce = false;
  let delayMs = FIRST_DELAY_MS;
  let stopping = false;
  /** @type {NodeJS.Timeout | undefined} */
  let reconnectTimer;

  return new Promise((resolve) => {
    /** @param {number} code */
    const finish = (code) => {
      clearTimeout(reconnectTimer);
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve(code);
    };

    /** Ctrl+C or SIGTERM: close with 1000 (the session ends) and exit 0. */
    function stop() {
      if (stopping) return;
      stopping = true;
      clearTimeout(reconnectTimer);
      if (socket && socket.readyState === WebSocket.OPEN) {
        socket.addEventListener('close', () => finish(0));
        socket.close(1000, 'stopped');
        // A server that does not answer the close is not waited for long.
        setTimeout(() => finish(0), 2000).unref();
      } else {
        socket?.close();
        finish(0);
      }
    }
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);

    /** @param {unknown} frame */
    const send = (frame) => {
      if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(frame));
      // Otherwise the server sends the event again after the reconnect, and it is answered from `results`.
    };

    /** @param {any} event */
    const onEvent = async (event) => {
      const id = String(event.id);
      let result = results.get(id);
      if (!result) {
        const at = new Date();
        result = forward(command.forwardTo, event.request ?? {}, command.timeoutMs);
        results.set(id, result);
        if (results.size > REMEMBERED_IDS) results.delete(results.keys().next().value ?? '');
        io.out(eventLine(at, event, await result));
      }
      const { status, durationMs, error } = await result;
      if (!stopping) send({ type: 'result', id, status, durationMs, error });
    };

    const connect = () => {
      const ws = new WebSocket(streamUrl, { headers: { authorization: `Bearer ${command.apiKey}` } });
      socket = ws;
      ws.addEventListener('message', (message) => {
        /** @type {any} */
        let frame;
        try {
          frame = JSON.parse(String(message.data));
        } catch {
          return;
        }
        if (frame?.type === 'ready') {
          delayMs = FIRST_DELAY_MS;
          if (!readyOnce) io.out(readyLine(session, command.forwardTo));
          else io.out('Reconnected.');
          readyOnce = true;
        } else if (frame?.type === 'event' && frame.id !== undefined) {
          void onEvent(frame);
        } else if (frame?.type === 'notice' && typeof frame.message === 'string') {
          io.out(frame.message);
        }
      });
      ws.addEventListener('close', (close) => {
        if (socket !== ws || stopping) return;
        // The server refuses a key or an ended session after the upgrade, with 4401 or 4404 (a refused upgrade's
        // HTTP status is not visible here: one, a backend shutting down, say, is retried like a lost connection).
        if (close.code === 4401) {
          io.err(
            `payments: the API key is not accepted (${redact(close.reason || 'refused by the backend', command.apiKey)}); ` +
              'the session has stopped. Check the key in the merchant backend and start "payments listen" again.',
          );
          finish(1);
          return;
        }
        if (close.code === 4404) {
          io.err('payments: the session has ended. Start "payments listen" again for a new one.');
          finish(1);
          return;
        }
        const why =
          close.code === 1006
            ? 'no connection to the backend'
            : `code ${close.code}${close.reason ? ` ${close.reason}` : ''}`;
        if (readyOnce && delayMs === FIRST_DELAY_MS) {
          io.err(`Connection lost (${why}); reconnecting in ${seconds(delayMs)}…`);
        } else if (!readyOnce && delayMs === FIRST_DELAY_MS) {
          io.err(`Could not connect to the session (${why}); retrying in ${seconds(delayMs)}…`);
        }
        reconnectTimer = setTimeout(connect, delayMs);
        delayMs = Math.min(delayMs * 2, MAX_DELAY_MS);
      });
      ws.addEventListener('error', () => {
        // Followed by `close`, which decides.
      });
    };

    try {
      connect();
    } catch (error) {
      io.err(`payments: cannot open the session's stream at ${streamUrl.origin} (${reasonOf(error)})`);
      finish(1);
    }
  });
}
