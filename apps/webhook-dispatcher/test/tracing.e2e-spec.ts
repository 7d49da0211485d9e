import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { waitFor } from '#testing';
import { DEV_PLATFORM_TOKEN } from '../../transaction-api/src/config/transaction-api.config.js';
import { TransactionApiHarness, transactionBody } from '../../transaction-api/test/harness.js';
import { Receiver, closeDb, createWebhook, dispatcherEnv, logsOf } from './dispatcher.harness.js';

const MAIN = 'dist/apps/webhook-dispatcher/src/main.js';

interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  attributes: Record<string, unknown>;
  status: number;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpExport {
  resourceSpans: Array<{
    resource: { attributes: OtlpAttribute[] };
    scopeSpans: Array<{
      spans: Array<{
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        attributes?: OtlpAttribute[];
        status?: { code?: number };
      }>;
    }>;
  }>;
}

const valueOf = (value: OtlpValue): unknown =>
  value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : (value.boolValue ?? value.doubleValue));
const attributesOf = (list: OtlpAttribute[] = []) => Object.fromEntries(list.map((a) => [a.key, valueOf(a.value)]));

/** An OTLP/HTTP collector: takes `POST /v1/traces` (JSON, as the exporter sends it) and keeps every span. */
class Collector {
  readonly spans: ReceivedSpan[] = [];
  private server!: Server;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        if (request.method !== 'POST' || request.url !== '/v1/traces') {
          response.writeHead(404).end();
          return;
        }
        let body = Buffer.concat(chunks);
        if (request.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
        const exported = JSON.parse(body.toString('utf8')) as OtlpExport;
        for (const resourceSpans of exported.resourceSpans) {
          const service = String(attributesOf(resourceSpans.resource.attributes)['service.name']);
          for (const scope of resourceSpans.scopeSpans) {
            for (const span of scope.spans) {
              this.spans.push({
                service,
                traceId: span.traceId,
                spanId: span.spanId,
                parentSpanId: span.parentSpanId ?? '',
                name: span.name,
                attributes: attributesOf(span.attributes),
                status: span.status?.code ?? 0,
              });
            }
          }
        }
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as { port: number }).port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

describe('tracing: one trace from a platform API call to every delivery attempt (OTLP/HTTP, real processes)', () => {
  const collector = new Collector();
  const receiver = new Receiver((request, count) => ({
    status: request.path === '/traced' && count === 1 ? 500 : 200,
  }));
  let api: TransactionApiHarness;
  let apiClosed = false;
  let dispatcher: ChildProcess;
  const dispatcherLines: string[] = [];

  beforeAll(async () => {
    if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: the test target builds it first`);
    await collector.start();
    await receiver.start();
    dispatcher = spawn(process.execPath, [MAIN], {
      env: dispatcherEnv({
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        LOG_LEVEL: 'debug',
        LOG_FORMAT: 'json',
      }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let partial = '';
    dispatcher.stdout?.on('data', (chunk: Buffer) => {
      const lines = (partial + chunk.toString('utf8')).split('\n');
      partial = lines.pop() ?? '';
      dispatcherLines.push(...lines);
    });
    dispatcher.stderr?.on('data', (chunk: Buffer) => process.stderr.write(`[dispatcher] ${chunk}`));
    api = await TransactionApiHarness.start({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.url });
  });
  afterAll(async () => {
    if (dispatcher.exitCode === null && dispatcher.signalCode === null) dispatcher.kill('SIGKILL');
    if (!apiClosed) await api.close();
    await receiver.stop();
    await collector.stop();
    await closeDb();
  });

  it('continues the caller’s traceparent: API span → fan-out → every attempt, repeats included; flushed on shutdown', async () => {
    const { merchantId, integrationId } = await api.merchantWithKey();
    const hook = await createWebhook({ merchantId, url: `${receiver.url}/traced`, retryOnError: true });
    const traceId = randomBytes(16).toString('hex');
    const callerSpanId = randomBytes(8).toString('hex');
    const created = await api.request<{ uuid: string }>('POST', '/internal/transactions', {
      body: transactionBody(merchantId, integrationId),
      headers: {
        authorization: `Bearer ${DEV_PLATFORM_TOKEN}`,
        traceparent: `00-${traceId}-${callerSpanId}-01`,
      },
    });
    expect(created.status).toBe(201);
    await waitFor(async () => (await logsOf(hook.id)).length === 2, { timeoutMs: 15_000, what: 'two attempts' });
    expect((await logsOf(hook.id)).map((log) => log.status)).toEqual([500, 200]);

    // Spans are batched: stopping each process exports what it still holds.
    const exited = new Promise((resolve) => dispatcher.once('exit', resolve));
    dispatcher.kill('SIGTERM');
    await exited;
    await api.close();
    apiClosed = true;

    const inTrace = () => collector.spans.filter((span) => span.traceId === traceId);
    await waitFor(() => inTrace().filter((span) => span.name === 'delivery attempt').length >= 2, {
      what: 'the attempt spans',
    });
    const apiSpan = inTrace().find((span) => span.name === 'POST /internal/transactions');
    expect(apiSpan).toMatchObject({
      service: 'transaction-api',
      parentSpanId: callerSpanId,
      attributes: { 'http.response.status_code': 201 },
    });

    // Every span of the event, the fan-out and its deliveries' attempts, is in the caller's trace.
    const [event] = await waitFor(async () => {
      const rows = (await logsOf(hook.id)).map((log) => log.event_id);
      return rows.length ? rows : undefined;
    });
    const eventSpans = collector.spans.filter(
      (span) =>
        span.attributes['event.id'] === event ||
        (span.name === 'delivery attempt' && span.attributes['webhook.id'] === hook.id),
    );
    expect(eventSpans.length).toBeGreaterThanOrEqual(3);
    expect(eventSpans.every((span) => span.traceId === traceId)).toBe(true);

    const fanOut = eventSpans.find((span) => span.name === 'fan-out')!;
    expect(fanOut).toMatchObject({ service: 'webhook-dispatcher', attributes: { deliveries: 1 } });
    const ancestors = new Set<string>();
    for (let span: ReceivedSpan | undefined = fanOut; span;) {
      const parent: string = span.parentSpanId;
      ancestors.add(parent);
      span = collector.spans.find((candidate) => candidate.spanId === parent);
    }
    expect(ancestors.has(apiSpan!.spanId)).toBe(true);

    const attempts = eventSpans
      .filter((span) => span.name === 'delivery attempt')
      .sort((a, b) => Number(a.attributes['delivery.attempt']) - Number(b.attributes['delivery.attempt']));
    expect(attempts.map((span) => span.parentSpanId)).toEqual([fanOut.spanId, fanOut.spanId]);
    expect(
      attempts.map((span) => [span.attributes['delivery.attempt'], span.attributes['http.response.status_code']]),
    ).toEqual([
      [1, 500],
      [2, 200],
    ]);
    expect(attempts.map((span) => span.status)).toEqual([2, 0]); // ERROR, then UNSET
    const deliveryId = receiver.to('/traced')[0].headers['webhook-id'];
    expect(attempts.every((span) => span.attributes['delivery.id'] === deliveryId)).toBe(true);

    // The dispatcher's log lines about the attempts carry the trace id.
    const attemptLines = dispatcherLines
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { msg: string; traceId?: string; deliveryId?: string })
      .filter((line) => line.deliveryId === deliveryId && line.msg.startsWith('attempt '));
    expect(attemptLines.length).toBe(2);
    expect(attemptLines.every((line) => line.traceId === traceId)).toBe(true);
  });
});
