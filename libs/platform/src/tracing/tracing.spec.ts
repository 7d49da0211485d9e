import { describe, expect, it } from '@jest/globals';
import { context, trace } from '@opentelemetry/api';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { currentLogFields, withLogFields } from '../logging/log-context.js';
import {
  activeTraceparent,
  continueTrace,
  inSpan,
  startSpan,
  startTracing,
  stopTracing,
  tracingEnabled,
} from './tracing.js';

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
    } finally {
      await stopTracing();
      collector.close();
    }
    expect(tracingEnabled()).toBe(false);
    expect(activeTraceparent()).toBeNull();
  });
});
