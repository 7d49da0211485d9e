import { describe, expect, it } from '@jest/globals';
import { context, SpanKind, trace, type Span } from '@opentelemetry/api';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { currentLogFields, withLogFields } from '../logging/log-context.js';
import { endPublishSpan, inProcessSpan, startPublishSpan } from './messaging.spans.js';
import {
  activeTraceparent,
  continueTrace,
  inSpan,
  startSpan,
  startTracing,
  stopTracing,
  traceparentOf,
  tracingEnabled,
} from './tracing.js';

/** What the SDK's span keeps (ReadableSpan), for the assertions. */
const readable = (span: Span | undefined) =>
  span as unknown as { kind: SpanKind; attributes: Record<string, unknown>; parentSpanContext?: { spanId: string } };
const consumed = (headers: Record<string, unknown>) => ({
  fields: { exchange: 'payments.events', routingKey: 'transaction.created' },
  properties: { headers, messageId: 'e-1' },
});

const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

describe('tracing off (OTEL_EXPORTER_OTLP_ENDPOINT unset)', () => {
  startTracing('test-app', undefined);

  it('registers nothing: the API stays the no-op', () => {
    expect(tracingEnabled()).toBe(false);
    expect(trace.getTracer('x').startSpan('s').isRecording()).toBe(false);
  });

  it('makes no span and no traceparent, even inside an incoming trace', async () => {
    expect(startSpan('attempt', {}, { traceparent: TRACEPARENT })).toBeUndefined();
    expect(activeTraceparent()).toBeNull();
    const seen: unknown[] = [];
    await inSpan('fan-out', { traceparent: TRACEPARENT }, {}, async (span) => {
      seen.push(span, activeTraceparent(), currentLogFields().traceId);
    });
    continueTrace({ traceparent: TRACEPARENT }, () =>
      seen.push(activeTraceparent(), trace.getSpanContext(context.active()), currentLogFields().traceId),
    );
    expect(seen).toEqual([undefined, null, undefined, null, undefined, undefined]);
  });

  it('runs the work as it is: its result, its errors and the log fields in scope', async () => {
    const result = withLogFields({ deliveryId: 'd1' }, () =>
      continueTrace({ traceparent: TRACEPARENT }, currentLogFields),
    );
    expect(result).toEqual({ deliveryId: 'd1' });
    await expect(inSpan('x', undefined, {}, async () => 42)).resolves.toBe(42);
    await expect(inSpan('x', undefined, {}, () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(stopTracing()).resolves.toBeUndefined();
  });

  it('makes no messaging span and builds no attributes', async () => {
    expect(startPublishSpan({ exchange: 'payments.events', routingKey: 't' }, { traceparent: TRACEPARENT })).toBe(
      undefined,
    );
    let built = false;
    const seen = await inProcessSpan(
      consumed({ traceparent: TRACEPARENT }),
      () => {
        built = true;
        return {};
      },
      async (span) => [span, activeTraceparent()],
    );
    expect(seen).toEqual([undefined, null]);
    expect(built).toBe(false);
  });
});

describe('tracing on', () => {
  it('continues a valid traceparent into the log fields and passes on the active span; ignores a bad one', async () => {
    const collector = createServer((request, response) => request.resume().on('end', () => response.end('{}')));
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    startTracing('test-app', `http://127.0.0.1:${(collector.address() as AddressInfo).port}/`);
    try {
      expect(tracingEnabled()).toBe(true);
      continueTrace({ traceparent: TRACEPARENT }, () => {
        expect(currentLogFields().traceId).toBe('0af7651916cd43dd8448eb211c80319c');
        expect(activeTraceparent()).toBe(TRACEPARENT);
      });
      continueTrace({ traceparent: 'garbage' }, () => expect(activeTraceparent()).toBeNull());
      await inSpan('fan-out', { traceparent: TRACEPARENT }, {}, async (span) => {
        const { traceId, spanId } = span!.spanContext();
        expect(traceId).toBe('0af7651916cd43dd8448eb211c80319c');
        expect(activeTraceparent()).toBe(`00-${traceId}-${spanId}-01`);
        expect(currentLogFields().traceId).toBe(traceId);
      });

      // The messaging spans: PRODUCER under the stored traceparent, CONSUMER under the PRODUCER's.
      const producer = startPublishSpan(
        { exchange: 'payments.events', routingKey: 'transaction.created', messageId: 'e-1' },
        { traceparent: TRACEPARENT },
      );
      expect(readable(producer)).toMatchObject({
        kind: SpanKind.PRODUCER,
        name: 'publish payments.events',
        parentSpanContext: { spanId: 'b7ad6b7169203331' },
        attributes: {
          'messaging.system': 'rabbitmq',
          'messaging.destination.name': 'payments.events',
          'messaging.operation.type': 'send',
          'messaging.rabbitmq.destination.routing_key': 'transaction.created',
          'messaging.message.id': 'e-1',
        },
      });
      const header = traceparentOf(producer!);
      expect(header).toBe(`00-0af7651916cd43dd8448eb211c80319c-${producer!.spanContext().spanId}-01`);
      await endPublishSpan(producer!, Promise.resolve());
      await inProcessSpan(
        consumed({ traceparent: header }),
        () => ({ 'event.id': 'e-1' }),
        async (span) => {
          expect(readable(span)).toMatchObject({
            kind: SpanKind.CONSUMER,
            name: 'process payments.events',
            parentSpanContext: { spanId: producer!.spanContext().spanId },
            attributes: { 'messaging.operation.type': 'process', 'event.id': 'e-1' },
          });
          expect(activeTraceparent()).toBe(traceparentOf(span!));
        },
      );
      const failed = startPublishSpan({ exchange: 'payments.events', routingKey: '' });
      await expect(
        endPublishSpan(failed!, Promise.reject(Object.assign(new Error('closed'), { code: 'ECHANNELCLOSED' }))),
      ).rejects.toThrow('closed');
      await new Promise((resolve) => setImmediate(resolve));
      expect(readable(failed).attributes).toEqual(expect.objectContaining({ 'error.type': 'ECHANNELCLOSED' }));
      expect(readable(failed).attributes['messaging.rabbitmq.destination.routing_key']).toBeUndefined();
    } finally {
      await stopTracing();
      collector.close();
    }
    expect(tracingEnabled()).toBe(false);
    expect(activeTraceparent()).toBeNull();
  });
});
