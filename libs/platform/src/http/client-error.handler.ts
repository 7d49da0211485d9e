import { randomUUIDv7 } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { BaseLogger } from 'pino';
import { UNMATCHED_ROUTE } from '../metrics/platform.metrics.js';
import { PROBLEM_CONTENT_TYPE, problemFor } from './problem.js';
import { REQUEST_ID_HEADER } from './request-log.js';

/** What Node's HTTP parser refuses, by error code; anything else it cannot parse is a 400. */
const REFUSALS: Record<string, [status: number, detail: string]> = {
  HPE_HEADER_OVERFLOW: [431, 'The request line and header fields are too large.'],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: [413, 'The chunk extensions of the request body are too large.'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'The request was not received in time.'],
};
const MALFORMED: [status: number, detail: string] = [400, 'The request is not valid HTTP.'];

/**
 * Fastify's `clientErrorHandler`: a request Node's HTTP parser refuses before any route sees it (header fields over
 * `maxHeaderSize`, a malformed request line or header) is answered on the socket with a problem naming nothing that
 * was sent, instead of Node's or Fastify's own answer; then the connection closes, as Node closes it. The answer
 * has a new request id (what was sent is not read), logged with its access line.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket, logger: BaseLogger): void {
  // Like Node: nothing to say on a connection the client reset, or in the middle of a response already begun.
  const current = (socket as Socket & { _httpMessage?: { headersSent: boolean } })._httpMessage;
  if (error.code !== 'ECONNRESET' && socket.writable && !current?.headersSent) {
    const [status, detail] = REFUSALS[error.code ?? ''] ?? MALFORMED;
    const body = JSON.stringify(problemFor(status, detail));
    const requestId = randomUUIDv7();
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: ${PROBLEM_CONTENT_TYPE}\r\n` +
        `content-length: ${Buffer.byteLength(body)}\r\n${REQUEST_ID_HEADER}: ${requestId}\r\n` +
        `connection: close\r\n\r\n${body}`,
    );
    logger.info(
      { requestId, route: UNMATCHED_ROUTE, status, code: error.code },
      `refused by the HTTP parser: ${status}`,
    );
  }
  socket.destroy();
}
