import type { IncomingMessage } from 'node:http';
import { randomUUIDv7 } from 'node:crypto';
import { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { runInLogFields, type LogFields } from '../logging/log-context.js';
import { UNMATCHED_ROUTE } from '../metrics/platform.metrics.js';

/** The request's id: taken from this request header when valid, and sent back in the response's. */
export const REQUEST_ID_HEADER = 'x-request-id';
const VALID_REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** Routes that orchestrators and Prometheus call every few seconds: their access lines are debug, not info. */
const PROBE_ROUTES: ReadonlySet<string> = new Set(['/health/live', '/health/ready', '/metrics']);

/** Fastify's `genReqId`: the caller's `x-request-id` when it is 1–128 of `A-Z a-z 0-9 . _ -`, else a new UUID. */
export function requestIdOf(request: IncomingMessage): string {
  const sent = request.headers[REQUEST_ID_HEADER];
  return typeof sent === 'string' && VALID_REQUEST_ID.test(sent) ? sent : randomUUIDv7();
}

/**
 * Each request's log fields, for the whole of its life (its merchant is added once it is authenticated): a request
 * decoration, so every request object has the slot from its construction (one shape, nothing for the GC to track
 * beside the request, unlike a WeakMap keyed by requests).
 */
const LOG_FIELDS = Symbol('logFields');
type RequestWithLogFields = FastifyRequest & { [LOG_FIELDS]: LogFields | null };
const fieldsOf = (request: FastifyRequest): LogFields =>
  (request as RequestWithLogFields)[LOG_FIELDS] ?? { requestId: request.id };

/**
 * Answers every request with its `x-request-id` and runs it in its log fields, so that every line logged while
 * answering it carries them (Fastify keeps the scope across reading the body). Add before any other hook: an answer
 * from an earlier one would lack the id.
 */
export function addRequestLogScope(fastify: FastifyInstance): void {
  fastify.decorateRequest(LOG_FIELDS, null);
  fastify.addHook('onRequest', (request, reply, done) => {
    void reply.header(REQUEST_ID_HEADER, request.id);
    const fields: LogFields = { requestId: request.id };
    (request as RequestWithLogFields)[LOG_FIELDS] = fields;
    runInLogFields(fields, done);
  });
}

/**
 * Fastify's request logging, as one access line per answered request (see logAccess). Nothing is logged when a
 * request arrives, nor Fastify's "route not found" (which quotes the URL).
 */
export class AccessLogController extends LogController {
  constructor(private readonly logger: Logger) {
    super();
  }

  override incomingRequest(): void {}

  override routeNotFound(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    logAccess(this.logger, request, reply, error);
  }
}

/**
 * The access line of an answered request: method, route template (never the URL: its query may hold customer data),
 * status, duration and the request's log fields. Probes log at debug. Nothing is built when the line's level is off.
 */
export function logAccess(logger: Logger, request: FastifyRequest, reply: FastifyReply, error?: Error | null): void {
  const route = request.routeOptions.url ?? UNMATCHED_ROUTE;
  const level = PROBE_ROUTES.has(route) ? 'debug' : error ? 'warn' : 'info';
  if (!logger.isLevelEnabled(level)) return;
  logger[level](
    {
      ...fieldsOf(request),
      method: request.method,
      route,
      status: reply.statusCode,
      durationMs: Math.round(reply.elapsedTime * 10) / 10,
      ...(error ? { err: error } : {}),
    },
    `${request.method} ${route} ${reply.statusCode}`,
  );
}
