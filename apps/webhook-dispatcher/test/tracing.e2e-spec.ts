import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { appTestEnv, freePort, waitFor } from '#testing';
import { DEV_PLATFORM_TOKEN } from '../../transaction-api/src/config/transaction-api.config.js';
import { transactionBody } from '../../transaction-api/test/harness.js';
import { startAppProcess, stopAppProcess, type AppProcess } from './app-process.js';
import { Receiver, closeDb, createWebhook, dispatcherEnv, logsOf, servesWebhook } from './dispatcher.harness.js';
import { SPAN_KIND, startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from './otlp-receiver.harness.js';

/** A query string and user info the webhook URL has, that no span may show. */
const QUERY_SECRET = 'q-s3cret-token';
const USER_SECRET = 'u-s3cret-pass';
/** In the transaction, so in the webhook's body: no span may show it. */
const BODY_MARK = 'order-never-in-a-span';

async function platform<T>(api: AppProcess, path: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${api.baseUrl}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${DEV_PLATFORM_TOKEN}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status !== 201) throw new Error(`POST ${path}: ${response.status} ${text}`);
  return JSON.parse(text) as T;
}

describe('tracing: a platform API call to every delivery attempt, exported over OTLP/HTTP (real processes)', () => {
  let otlp: OtlpReceiver;
  const receiver = new Receiver((request, count) => ({
    status: request.path.startsWith('/traced') && count === 1 ? 500 : 200,
  }));
  let api: AppProcess | undefined;
  let dispatcher: AppProcess | undefined;

  beforeAll(async () => {
    otlp = await startOtlpReceiver();
    await receiver.start();
    dispatcher = await startAppProcess(
      'webhook-dispatcher',
      dispatcherEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, LOG_LEVEL: 'debug', LOG_FORMAT: 'json' }),
    );
    api = await startAppProcess(
      'transaction-api',
      appTestEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OUTBOX_POLL_MS: '100', API_RATE_LIMIT: '1000000' }),
    );
  });
  afterAll(async () => {
    await stopAppProcess(dispatcher);
    await stopAppProcess(api);
    await receiver.stop();
    await otlp.stop();
    await closeDb();
  });

  it('SERVER → PRODUCER → CONSUMER → CLIENT in the caller’s trace, with the conventions’ attributes and no secret', async () => {
    const merchant = await platform<{ id: string }>(api!, '/internal/merchants', { name: 'Traced merchant' });
    const integration = await platform<{ id: string }>(api!, `/internal/merchants/${merchant.id}/integrations`, {
      name: 'Shop',
    });
    const port = Number(new URL(receiver.url).port);
    const hook = await createWebhook({
      merchantId: merchant.id,
      url: `http://hook-user:${USER_SECRET}@127.0.0.1:${port}/traced?token=${QUERY_SECRET}`,
      retryOnError: true,
    });
    // The receiver sees the URL without its user info: its body checks know the webhook under that one too.
    servesWebhook(`${receiver.url}/traced?token=${QUERY_SECRET}`, { version: '2026-08-20', contentType: 'json' });
    // A second webhook nothing listens at: its one attempt fails without a response.
    const closedPort = await freePort();
    const refused = await createWebhook({ merchantId: merchant.id, url: `http://127.0.0.1:${closedPort}/gone` });

    const traceId = randomBytes(16).toString('hex');
    const callerSpanId = randomBytes(8).toString('hex');
    const created = await platform<{ uuid: string }>(
      api!,
      '/internal/transactions',
      transactionBody(merchant.id, integration.id, { referenceId: BODY_MARK }),
      { traceparent: `00-${traceId}-${callerSpanId}-01` },
    );
    expect(created.uuid).toBeDefined();
    await waitFor(async () => (await logsOf(hook.id)).length === 2 && (await logsOf(refused.id)).length === 1, {
      timeoutMs: 15_000,
      what: 'two attempts to the receiver, one to the closed port',
    });
    const logs = await logsOf(hook.id);
    expect(logs.map((log) => log.status)).toEqual([500, 200]);
    const event = { id: logs[0].event_id, type: 'transaction.created' };

    // Spans are batched: stopping each process exports what it still holds.
    await stopAppProcess(dispatcher);
    await stopAppProcess(api);
    const inTrace = (spans: ReceivedSpan[]) => spans.filter((span) => span.traceId === traceId);
    const { spans, rejected } = await waitFor(
      async () => {
        const received = await otlp.received();
        return inTrace(received.spans).filter((span) => span.kind === SPAN_KIND.client).length >= 3
          ? received
          : undefined;
      },
      { what: 'the three attempts’ CLIENT spans' },
    );
    expect(rejected).toBe(0);
    const trace = inTrace(spans);
    const byId = (spanId: string) => trace.find((span) => span.spanId === spanId);

    // The API request: a SERVER span, the child of the caller's.
    const server = trace.find((span) => span.kind === SPAN_KIND.server && span.name === 'POST /internal/transactions');
    expect(server).toMatchObject({
      service: 'transaction-api',
      parentSpanId: callerSpanId,
      attributes: {
        'http.request.method': 'POST',
        'http.route': '/internal/transactions',
        'http.response.status_code': 201,
        'url.path': '/internal/transactions',
        'url.scheme': 'http',
        'server.address': '127.0.0.1',
      },
    });

    // The relay's publish: a PRODUCER span, the child of the request that wrote the event.
    const producers = trace.filter((span) => span.kind === SPAN_KIND.producer);
    expect(producers).toHaveLength(1);
    const messaging = {
      'messaging.system': 'rabbitmq',
      'messaging.destination.name': 'payments.events',
      'messaging.rabbitmq.destination.routing_key': event.type,
      'messaging.message.id': event.id,
    };
    expect(producers[0]).toMatchObject({
      service: 'transaction-api',
      name: 'publish payments.events',
      parentSpanId: server!.spanId,
      attributes: { ...messaging, 'messaging.operation.type': 'send' },
    });

    // The fan-out: a CONSUMER span, the child of the PRODUCER span (through the message's traceparent header).
    const consumers = trace.filter((span) => span.kind === SPAN_KIND.consumer);
    expect(consumers).toHaveLength(1);
    expect(consumers[0]).toMatchObject({
      service: 'webhook-dispatcher',
      name: 'process payments.events',
      parentSpanId: producers[0].spanId,
      attributes: {
        ...messaging,
        'messaging.operation.type': 'process',
        'event.id': event.id,
        'event.type': event.type,
        deliveries: 2,
      },
    });

    // Each attempt, repeats included: a CLIENT span, the child of the CONSUMER span.
    const clients = trace.filter((span) => span.kind === SPAN_KIND.client);
    expect(clients.every((span) => span.parentSpanId === consumers[0].spanId && span.name === 'POST')).toBe(true);
    expect(clients.every((span) => span.service === 'webhook-dispatcher')).toBe(true);
    const attempts = clients
      .filter((span) => span.attributes['webhook.id'] === hook.id)
      .sort((a, b) => Number(a.attributes['delivery.attempt']) - Number(b.attributes['delivery.attempt']));
    const deliveryId = logs[0].delivery_id;
    const target = {
      'http.request.method': 'POST',
      'server.address': '127.0.0.1',
      'server.port': port,
      'url.full': `http://127.0.0.1:${port}/traced`,
      'url.scheme': 'http',
      'webhook.id': hook.id,
      'delivery.id': deliveryId,
    };
    expect(attempts).toMatchObject([
      {
        status: 2, // ERROR
        attributes: { ...target, 'delivery.attempt': 1, 'http.response.status_code': 500, 'error.type': '500' },
      },
      { status: 0, attributes: { ...target, 'delivery.attempt': 2, 'http.response.status_code': 200 } },
    ]);
    expect(attempts[1].attributes['error.type']).toBeUndefined();
    const noResponse = clients.find((span) => span.attributes['webhook.id'] === refused.id);
    expect(noResponse).toMatchObject({
      status: 2,
      attributes: {
        'url.full': `http://127.0.0.1:${closedPort}/gone`,
        'server.port': closedPort,
        'delivery.attempt': 1,
        'error.type': 'ECONNREFUSED',
      },
    });
    expect(noResponse!.attributes['http.response.status_code']).toBeUndefined();

    // The chain, walked up from an attempt: CLIENT → CONSUMER → PRODUCER → SERVER → the caller.
    const chain: number[] = [];
    for (let span = byId(attempts[0].spanId); span; span = byId(span.parentSpanId)) chain.push(span.kind);
    expect(chain).toEqual([SPAN_KIND.client, SPAN_KIND.consumer, SPAN_KIND.producer, SPAN_KIND.server]);

    // Nothing secret in any span: not the URL's query or user info, not a signature, not a body.
    const received = receiver.to(`/traced?token=${QUERY_SECRET}`);
    expect(received).toHaveLength(2);
    const exported = JSON.stringify(spans);
    for (const secret of [QUERY_SECRET, USER_SECRET, 'hook-user', String(received[0].headers['webhook-signature'])]) {
      expect(exported).not.toContain(secret);
    }
    expect(received[0].body).toContain(BODY_MARK);
    expect(exported).not.toContain(BODY_MARK);

    // The dispatcher's log lines about the attempts carry the trace id.
    const attemptLines = dispatcher!
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{') && line.endsWith('}'))
      .map((line) => JSON.parse(line) as { msg?: string; traceId?: string; deliveryId?: string })
      .filter((line) => line.deliveryId === deliveryId && line.msg?.startsWith('attempt '));
    expect(attemptLines.length).toBe(2);
    expect(attemptLines.every((line) => line.traceId === traceId)).toBe(true);
  });
});
