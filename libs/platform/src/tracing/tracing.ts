import {
  context,
  propagation,
  trace,
  SpanKind,
  SpanStatusCode,
  type Attributes,
  type Context,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import { Logger } from '@nestjs/common';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ATTR_ERROR_TYPE, ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { TRACEPARENT_HEADER } from '#messaging';
import { withLogFields } from '../logging/log-context.js';

/**
 * The process's tracer while tracing is on (OTEL_EXPORTER_OTLP_ENDPOINT set), else undefined: with tracing off no
 * provider is registered, and every helper below returns after this one check (no span objects, no header work).
 */
let tracer: Tracer | undefined;
let provider: BasicTracerProvider | undefined;
const propagator = new W3CTraceContextPropagator();

/**
 * Starts tracing for this process when `endpoint` (OTEL_EXPORTER_OTLP_ENDPOINT, the collector's base URL) is set:
 * spans are batched and exported over OTLP/HTTP to `{endpoint}/v1/traces`, with `service.name` = `serviceName`.
 * Sampling follows OTEL_TRACES_SAMPLER (default parentbased_always_on). Once per process: a second app in the same
 * process shares the first one's provider.
 */
export function startTracing(serviceName: string, endpoint: string | undefined): void {
  if (!endpoint || provider) return;
  provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: serviceName }),
    spanProcessors: [
      new BatchSpanProcessor(new OTLPTraceExporter({ url: `${endpoint.replace(/\/+$/, '')}/v1/traces` })),
    ],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(propagator);
  trace.setGlobalTracerProvider(provider);
  tracer = trace.getTracer(serviceName);
}

/** Exports the spans still buffered and stops tracing (shutdown); nothing to do when tracing is off. */
export async function stopTracing(): Promise<void> {
  const stopping = provider;
  if (!stopping) return;
  tracer = undefined;
  provider = undefined;
  // A collector that is away costs the last spans, never the shutdown.
  await stopping
    .shutdown()
    .catch((error: Error) => new Logger('Tracing').warn(`exporting the last spans failed: ${error.message}`));
  trace.disable();
  propagation.disable();
  context.disable();
}

export function tracingEnabled(): boolean {
  return tracer !== undefined;
}

/** Reads a `traceparent` from message or request headers into a context (the active one when there is none). */
function contextFrom(headers: Record<string, unknown> | undefined): Context {
  const active = context.active();
  return headers?.[TRACEPARENT_HEADER] === undefined ? active : propagator.extract(active, headers, headerGetter);
}

const headerGetter = {
  keys: (carrier: Record<string, unknown>) => Object.keys(carrier),
  get: (carrier: Record<string, unknown>, key: string) => {
    const value = carrier[key];
    return typeof value === 'string' ? value : Buffer.isBuffer(value) ? value.toString('latin1') : undefined;
  },
};

/**
 * Runs `work` as span `name`, the child of the `traceparent` in `headers` (else of the active span, else a new
 * trace); the span is active inside it and its trace id is in the log fields. Ends it when `work` settles (error
 * status if it throws). With tracing off, just runs `work`.
 */
export async function inSpan<T>(
  name: string,
  headers: Record<string, unknown> | undefined,
  attributes: Attributes,
  work: (span?: Span) => Promise<T>,
): Promise<T> {
  const span = startSpan(name, attributes, headers);
  if (!span) return work();
  try {
    return await runInSpan(span, () => work(span));
  } catch (error) {
    failSpan(span, error);
    throw error;
  } finally {
    span.end();
  }
}

/**
 * Runs `work` in the trace of the `traceparent` in `headers` without a span of its own (spans started inside are its
 * children: a delivery message's attempt is a child of the fan-out that published it), its trace id in the log
 * fields. With tracing off, or no valid `traceparent`, just runs `work`.
 */
export function continueTrace<T>(headers: Record<string, unknown> | undefined, work: () => T): T {
  if (!tracer || headers?.[TRACEPARENT_HEADER] === undefined) return work();
  const remote = contextFrom(headers);
  const traceId = trace.getSpanContext(remote)?.traceId;
  if (!traceId) return work();
  return context.with(remote, () => withLogFields({ traceId }, work));
}

/**
 * Starts span `name` of `kind` (INTERNAL unless said), that the caller ends: the child of the `traceparent` in
 * `headers` when given and valid, else of the active span, else the root of a new trace. Undefined with tracing off.
 */
export function startSpan(
  name: string,
  attributes: Attributes,
  headers?: Record<string, unknown>,
  kind: SpanKind = SpanKind.INTERNAL,
): Span | undefined {
  return tracer?.startSpan(name, { kind, attributes }, contextFrom(headers));
}

/** Runs `work` with `span` active (what it starts or passes on descends from it). */
export function activateSpan<T>(span: Span, work: () => T): T {
  return context.with(trace.setSpan(context.active(), span), work);
}

/** Runs `work` with `span` active and its trace id in the log fields. */
export function runInSpan<T>(span: Span, work: () => T): T {
  return activateSpan(span, () => withLogFields({ traceId: span.spanContext().traceId }, work));
}

/**
 * Marks a span failed with the error's message (never a value the error carries) and, when given, its `error.type`
 * (a low-cardinality class: a status code, an error code, `timeout`).
 */
export function failSpan(span: Span, error: unknown, errorType?: string): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
  if (errorType !== undefined) span.setAttribute(ATTR_ERROR_TYPE, errorType);
}

/** The `traceparent` of the active span, to pass on with a message or a stored event; null with tracing off. */
export function activeTraceparent(): string | null {
  if (!tracer) return null;
  return traceparentIn(context.active());
}

/** The `traceparent` naming `span` as the parent (a published message's header); null with tracing off. */
export function traceparentOf(span: Span): string | null {
  if (!tracer) return null;
  return traceparentIn(trace.setSpan(context.active(), span));
}

function traceparentIn(carrying: Context): string | null {
  const carrier: Record<string, string> = {};
  propagator.inject(carrying, carrier, {
    set: (target, key, value) => (target[key] = value),
  });
  return carrier[TRACEPARENT_HEADER] ?? null;
}
