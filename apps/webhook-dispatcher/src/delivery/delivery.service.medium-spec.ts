import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID, randomUUIDv7 } from 'node:crypto';
import { generateWebhookSecret } from '#domain';
import { AmqpClient, type DeliveryMessage, type DeliverySnapshot } from '#messaging';
import { appTestEnv, insertDelivery, insertMerchant, insertWebhook, waitFor } from '#testing';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { DatabaseRetry } from '../common/database-retry.js';
import { loadWebhookDispatcherConfig } from '../config/webhook-dispatcher.config.js';
import type { SigningWebhook, WebhookCache } from '../webhook/webhook.cache.js';
import type { DeliveryLogWriter } from './delivery-log.writer.js';
import { DeliveryService } from './delivery.service.js';
import { dispatcherSpecInfrastructure, type DispatcherSpecBroker } from '../../test/spec-infrastructure.js';
import { deliveryLogWriter, deliveryService } from '../../test/attempt-record.fixture.js';

interface Received {
  path: string;
  body: string;
  headers: IncomingMessage['headers'];
}

/**
 * A delivery message taken to its attempt, with the dispatcher's real delivery collaborators on a real database and
 * broker, POSTing to a tiny real HTTP receiver: the attempt is made and logged; a redelivered message whose attempt is
 * logged, a delivery that no longer exists and a deleted webhook's are dropped without a request; an attempt that
 * runs long hands its message over and finishes detached. The webhooks' settings come from a map (the cache of
 * webhook-config's table is not what is tested here).
 * On a database and vhost of its own (provisionOwnInfrastructure): the messages it hands over stay off the run's
 * queues.
 */
describe('DeliveryService (real PostgreSQL, RabbitMQ, HTTP)', () => {
  let infra: DispatcherSpecBroker;
  let admin: pg.Pool;
  const settings = new Map<string, SigningWebhook>();
  const cache = { forDelivery: async (id: string) => settings.get(id) } as unknown as WebhookCache;
  const received: Received[] = [];
  /** How the receiver answers a path: status, after how long (ms). */
  const answers = new Map<string, { status: number; delayMs: number }>();
  let receiver: Server;
  let baseUrl: string;
  let db: DataSource;
  let amqp: AmqpClient;
  let log: DeliveryLogWriter;
  let service: DeliveryService;
  let merchantId: string;

  beforeAll(async () => {
    receiver = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const path = request.url ?? '/';
        received.push({ path, body: Buffer.concat(chunks).toString(), headers: request.headers });
        const { status, delayMs } = answers.get(path) ?? { status: 200, delayMs: 0 };
        setTimeout(() => response.writeHead(status).end('ok'), delayMs);
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

    const config = loadWebhookDispatcherConfig(appTestEnv({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' }));
    infra = await dispatcherSpecInfrastructure('delivery-service', { poolSize: 6, topology: config.topology });
    ({ admin, db, amqp } = infra);
    const retry = new DatabaseRetry();
    // Health reports are not what this suite is about: nobody is told.
    log = deliveryLogWriter(db, retry);
    service = deliveryService(config, db, amqp, cache, log, retry);
    merchantId = await insertMerchant(admin);
  });
  afterAll(async () => {
    await service?.settleDetached(5_000);
    await log?.onApplicationShutdown();
    await infra?.close();
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
  });

  /** A webhook posting to `path` on the receiver, and a recorded delivery of it with its message. */
  async function delivery(path: string, retryOnError = false) {
    const url = `${baseUrl}${path}`;
    const webhookId = await insertWebhook(admin, { merchantId, url, retryOnError });
    settings.set(webhookId, {
      id: webhookId,
      merchantId,
      integrationId: null,
      url,
      contentType: 'json',
      version: '2026-08-20',
      retryOnError,
      events: ['transaction'],
      enabled: true,
      enabledAt: null,
      maxPerSecond: null,
      skipSupersededRepeats: true,
      secrets: [{ secret: generateWebhookSecret(), expiresAt: null }],
      // As the cache hands them over: a reserved one cannot be among them, yet ours win over anything.
      headers: { authorization: 'Bearer medium-1234', 'x-shop': 'a b c', 'user-agent': 'not ours' },
    });
    const body = JSON.stringify({ transaction: { uuid: randomUUID() } });
    const deliveryId = await insertDelivery(admin, { webhookId, merchantId, url, body });
    const snapshot: DeliverySnapshot = {
      webhookId,
      eventId: randomUUIDv7(),
      eventType: 'transaction',
      subject: { psp: 'Payrexx Direct', type: 'e-commerce', uuid: randomUUID() },
      contentType: 'json',
      version: '2026-08-20',
      body,
      occurredAt: new Date().toISOString(),
    };
    const message: DeliveryMessage = { v: 1, deliveryId, snapshot };
    return { webhookId, message, body };
  }
  const logOf = async (deliveryId: string) =>
    (
      await admin.query<{ attempt: number; outcome: string; status: number | null }>(
        `SELECT attempt, outcome, status FROM webhook_log WHERE delivery_id = $1 ORDER BY attempt`,
        [deliveryId],
      )
    ).rows;
  const requestsTo = (path: string) => received.filter((r) => r.path === path);

  it('makes the attempt: one signed POST of the body, logged delivered', async () => {
    const path = `/ok-${randomUUID()}`;
    const { message, body } = await delivery(path);
    expect(await service.attempt({ message, attempt: 1 })).toBe('attempted');
    expect(requestsTo(path)).toHaveLength(1);
    expect(requestsTo(path)[0].body).toBe(body);
    expect(Object.keys(requestsTo(path)[0].headers).some((name) => /signature/i.test(name))).toBe(true);
    expect(requestsTo(path)[0].headers).toMatchObject({
      authorization: 'Bearer medium-1234',
      'x-shop': 'a b c',
      'user-agent': 'payments-webhooks/1.0',
    });
    expect(await logOf(message.deliveryId)).toEqual([{ attempt: 1, outcome: 'delivered', status: 200 }]);
  });

  it('logs a failed answer as failed', async () => {
    const path = `/fail-${randomUUID()}`;
    answers.set(path, { status: 500, delayMs: 0 });
    const { message } = await delivery(path);
    expect(await service.attempt({ message, attempt: 1 })).toBe('attempted');
    expect(await logOf(message.deliveryId)).toEqual([{ attempt: 1, outcome: 'failed', status: 500 }]);
  });

  it('drops a redelivered message whose attempt is logged, without a second request', async () => {
    const path = `/again-${randomUUID()}`;
    const { message } = await delivery(path);
    expect(await service.attempt({ message, attempt: 1 })).toBe('attempted');
    expect(await service.attempt({ message, attempt: 1, origin: 'redelivered' })).toBe('dropped');
    expect(await service.attempt({ message, attempt: 1, origin: 'guard' })).toBe('dropped');
    expect(requestsTo(path)).toHaveLength(1);
    // A redelivered message whose attempt was never logged is attempted.
    const other = await delivery(path);
    expect(await service.attempt({ message: other.message, attempt: 1, origin: 'redelivered' })).toBe('attempted');
    expect(requestsTo(path)).toHaveLength(2);
  });

  it("drops, without a request, a resend of a delivery that no longer exists and a deleted webhook's delivery", async () => {
    const path = `/gone-${randomUUID()}`;
    const missing: DeliveryMessage = { v: 1, deliveryId: randomUUIDv7(), manual: true };
    expect(await service.attempt({ message: missing, attempt: 2 })).toBe('dropped');
    const { webhookId, message } = await delivery(path);
    settings.delete(webhookId);
    expect(await service.attempt({ message, attempt: 1 })).toBe('dropped');
    expect(requestsTo(path)).toHaveLength(0);
    expect(await logOf(message.deliveryId)).toEqual([]);
  });

  it('hands the message over when its attempt runs past a second, and logs the attempt when it ends', async () => {
    const path = `/slow-${randomUUID()}`;
    answers.set(path, { status: 200, delayMs: 1_600 });
    const { message } = await delivery(path);
    expect(await service.attempt({ message, attempt: 1 })).toBe('handed-over');
    expect(service.detachedCount).toBeGreaterThanOrEqual(1);
    await waitFor(async () => (await logOf(message.deliveryId)).length > 0, { timeoutMs: 10_000 });
    expect(await logOf(message.deliveryId)).toEqual([{ attempt: 1, outcome: 'delivered', status: 200 }]);
    // Its stand-in, back from the guard queue, finds it logged.
    expect(await service.attempt({ message, attempt: 1, origin: 'guard' })).toBe('dropped');
    expect(requestsTo(path)).toHaveLength(1);
  });
});
