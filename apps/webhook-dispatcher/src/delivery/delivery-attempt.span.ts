import { SpanKind, type Attributes, type Span } from '@opentelemetry/api';
import {
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_URL_FULL,
  ATTR_URL_SCHEME,
} from '@opentelemetry/semantic-conventions';
import { failSpan, portOf, startSpan } from '#platform';
import type { SendResult } from './http.sender.js';

const METHOD = 'POST';
const MAX_CACHED_TARGETS = 10_000;
/** A webhook URL's span attributes, parsed once per URL (only while tracing is on). */
const targets = new Map<string, Attributes>();

/**
 * The HTTP client conventions' attributes of a webhook's URL. `url.full` is the scheme, host, port and path only:
 * never the query string (a merchant may put a token there) or user info. Empty for a URL that does not parse.
 */
export function targetAttributes(url: string): Attributes {
  let attributes = targets.get(url);
  if (!attributes) {
    attributes = {};
    try {
      const parsed = new URL(url);
      attributes = {
        [ATTR_URL_FULL]: `${parsed.protocol}//${parsed.host}${parsed.pathname}`,
        [ATTR_URL_SCHEME]: parsed.protocol.slice(0, -1),
        [ATTR_SERVER_ADDRESS]: parsed.hostname.replace(/^\[|\]$/g, ''),
        [ATTR_SERVER_PORT]: portOf(parsed),
      };
    } catch {
      // Not a URL (the sender says why): the span has our attributes only.
    }
    if (targets.size >= MAX_CACHED_TARGETS) targets.clear();
    targets.set(url, attributes);
  }
  return attributes;
}

/** Which attempt of which delivery to which webhook: our attributes beside the conventions'. */
export interface AttemptOf {
  url: string;
  webhookId: string;
  deliveryId: string;
  attempt: number;
}

/**
 * Starts an attempt's CLIENT span, `POST`, the child of the active trace (the event's CONSUMER span); undefined with
 * tracing off. Nothing of the request's headers (its signature), its body or the response goes in it.
 */
export function startAttemptSpan(of: AttemptOf): Span | undefined {
  return startSpan(
    METHOD,
    {
      [ATTR_HTTP_REQUEST_METHOD]: METHOD,
      ...targetAttributes(of.url),
      'webhook.id': of.webhookId,
      'delivery.id': of.deliveryId,
      'delivery.attempt': of.attempt,
    },
    undefined,
    SpanKind.CLIENT,
  );
}

/**
 * Records the POST's outcome on its span: the status (none when no response came), and for a failed attempt the
 * error status and `error.type` — the status code, or why no response came (`timeout`, `ECONNREFUSED`, …).
 */
export function recordAttemptOutcome(span: Span, result: SendResult, succeeded: boolean): void {
  if (result.status > 0) span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, result.status);
  if (succeeded) return;
  const errorType = result.status > 0 ? String(result.status) : (result.errorType ?? '_OTHER');
  failSpan(span, result.error ?? `HTTP ${result.status}`, errorType);
}
