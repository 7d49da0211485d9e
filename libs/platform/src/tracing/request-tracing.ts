import { SpanKind, type Span } from '@opentelemetry/api';
import {
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_SERVER_ADDRESS,
  ATTR_URL_PATH,
  ATTR_URL_SCHEME,
  ERROR_TYPE_VALUE_OTHER,
} from '@opentelemetry/semantic-conventions';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { addLogFields } from '../logging/log-context.js';
import { UNMATCHED_ROUTE } from '../metrics/platform.metrics.js';
import { activateSpan, failSpan, startSpan, startTracing, stopTracing, tracingEnabled } from './tracing.js';

/** The platform (internal) API: the requests that start or continue a trace. */
const PLATFORM_API_PREFIX = '/internal/';

const spans = new WeakMap<FastifyRequest, Span>();

/**
 * Starts tracing when `otlpEndpoint` is set (see startTracing), traces the platform API's requests and exports the
 * spans still buffered when the app closes. Does nothing with tracing off.
 */
export function addTracing(fastify: FastifyInstance, serviceName: string, otlpEndpoint: string | undefined): void {
  startTracing(serviceName, otlpEndpoint);
  if (!tracingEnabled()) return;
  addRequestTracing(fastify);
  fastify.addHook('onClose', () => stopTracing());
}

/**
 * Makes each platform API request a SERVER span (`POST /internal/transactions`, the HTTP semantic conventions'
 * attributes), the child of the request's W3C `traceparent` when it has a valid one, else the root of a new trace;
 * what the request does runs in it (an outbox event stores it) and its log lines carry the trace id. Never a query
 * string, a body or a header value but the Host name (`server.address`). Nothing is added with tracing off. Add
 * after the request log scope (request-log.ts), whose fields the trace id joins.
 */
function addRequestTracing(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', (request, _reply, done) => {
    if (!request.url.startsWith(PLATFORM_API_PREFIX)) {
      done();
      return;
    }
    const route = request.routeOptions.url ?? UNMATCHED_ROUTE;
    const query = request.url.indexOf('?');
    const span = startSpan(
      `${request.method} ${route}`,
      {
        [ATTR_HTTP_REQUEST_METHOD]: request.method,
        [ATTR_HTTP_ROUTE]: route,
        [ATTR_URL_PATH]: query === -1 ? request.url : request.url.slice(0, query),
        [ATTR_URL_SCHEME]: request.protocol,
        [ATTR_SERVER_ADDRESS]: request.hostname,
      },
      request.headers,
      SpanKind.SERVER,
    );
    if (!span) {
      done();
      return;
    }
    spans.set(request, span);
    addLogFields({ traceId: span.spanContext().traceId });
    activateSpan(span, done);
  });
  fastify.addHook('onResponse', (request, reply, done) => {
    const span = spans.get(request);
    if (span) {
      spans.delete(request);
      span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, reply.statusCode);
      // A server span fails on 5xx only: a 4xx is the caller's mistake, answered as it should be.
      if (reply.statusCode >= 500) failSpan(span, `HTTP ${reply.statusCode}`, String(reply.statusCode));
      span.end();
    }
    done();
  });
  fastify.addHook('onRequestAbort', (request, done) => {
    const span = spans.get(request);
    if (span) {
      spans.delete(request);
      failSpan(span, 'request aborted', ERROR_TYPE_VALUE_OTHER);
      span.end();
    }
    done();
  });
}
