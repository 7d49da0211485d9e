import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  AmqpClient,
  ATTEMPT_HEADER,
  EXCHANGES,
  readEventSubject,
  ROUTING_KEYS,
  type DeliveryMessage,
} from '#messaging';
import { generateWebhookSecret } from '#domain';
import { PlatformMetrics, SecretCipher } from '#platform';
import { AmqpTap, appTestEnv, insertMerchant, insertWebhook, transactionEvent, waitFor } from '#testing';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { DatabaseRetry } from '../common/database-retry.js';
import { loadWebhookDispatcherConfig } from '../config/webhook-dispatcher.config.js';
import type { DeliveryLogWriter } from '../delivery/delivery-log.writer.js';
import { DeliveryPublisher } from '../delivery/delivery.publisher.js';
import type { DeliveryService } from '../delivery/delivery.service.js';
import { DispatcherMetrics } from '../metrics/dispatcher.metrics.js';
import { WebhookCache } from '../webhook/webhook.cache.js';
import { WebhookRepository } from '../webhook/webhook.repository.js';
import { FanOutService } from './fan-out.service.js';
import { dispatcherSpecInfrastructure, type DispatcherSpecBroker } from '../../test/spec-infrastructure.js';
import { deliveryLogWriter, deliveryRepository, deliveryService } from '../../test/attempt-record.fixture.js';

/** A request as the receiver saw it, and how it was answered (after `delayMs`, when `answeredAt`). */
interface Received {
  path: string;
  body: string;
  answeredAt?: number;
}

/**
 * One event in, one delivery per matching webhook out, on a real database, broker and HTTP receiver: the webhooks
 * come from webhook-config's table through the dispatcher's view and cache, the deliveries are recorded, the enabled
 * webhooks' first attempts made by the fan-out itself (no delivery message for one that succeeds) and the disabled
 * ones' logged as skipped; the fan-out returns before a receiver that hangs has answered (its attempt handed over).
 * On a database and vhost of its own (provisionOwnInfrastructure): what it hands over stays off the run's queues,
 * which later suites' dispatchers consume.
 */
describe('FanOutService (real PostgreSQL, RabbitMQ, HTTP)', () => {
  let infra: DispatcherSpecBroker;
  let admin: pg.Pool;
  let db: DataSource;
  let amqp: AmqpClient;
  let log: DeliveryLogWriter;
  let attempts: DeliveryService;
  let fanOut: FanOutService;
  /** One whose process is shutting down (stopFirstAttempts). */
  let stopped: FanOutService;
  let tap: AmqpTap<DeliveryMessage>;
  let receiver: Server;
  let baseUrl: string;
  const received: Received[] = [];
  /** How long the receiver waits before it answers a path (ms; 0 when not set). */
  const delays = new Map<string, number>();
  let cipher: SecretCipher;
  /** A webhook as webhook-config stores it, with a signing secret (an attempt needs one). */
  const webhook = async (row: Parameters<typeof insertWebhook>[1]) => {
    const id = await insertWebhook(admin, row);
    await admin.query(`INSERT INTO webhook_secret (id, webhook_id, ciphertext) VALUES ($1, $2, $3)`, [
      randomUUID(),
      id,
      cipher.encrypt(generateWebhookSecret(), id),
    ]);
    return id;
  };

  beforeAll(async () => {
    receiver = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const entry: Received = { path: request.url ?? '/', body: Buffer.concat(chunks).toString() };
        received.push(entry);
        setTimeout(
          () => {
            entry.answeredAt = Date.now();
            response.writeHead(200).end('ok');
          },
          delays.get(entry.path) ?? 0,
        );
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

    const config = loadWebhookDispatcherConfig(appTestEnv({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' }));
    cipher = new SecretCipher(config.secretEncryptionKey);
    infra = await dispatcherSpecInfrastructure('fan-out', { poolSize: 6, topology: config.topology });
    ({ admin, db, amqp } = infra);
    tap = await AmqpTap.bind<DeliveryMessage>(EXCHANGES.deliveries, ROUTING_KEYS.deliver, infra.own.amqpUrl);
    const retry = new DatabaseRetry();
    // Health reports are not what this suite is about: nobody is told.
    log = deliveryLogWriter(db, retry);
    const cache = new WebhookCache(new WebhookRepository(db, retry), config);
    attempts = deliveryService(config, db, amqp, cache, log, retry);
    const make = () =>
      new FanOutService(
        cache,
        deliveryRepository(db, retry),
        attempts,
        new DeliveryPublisher(amqp, config),
        new DispatcherMetrics(new PlatformMetrics()),
        log,
        config,
      );
    fanOut = make();
    stopped = make();
    stopped.stopFirstAttempts();
  });
  afterAll(async () => {
    await attempts?.settleDetached(10_000);
    await log?.onApplicationShutdown();
    await tap?.close();
    await infra?.close();
    receiver?.closeAllConnections();
    await new Promise((resolve) => receiver?.close(resolve));
  });

  const subjectOf = (event: ReturnType<typeof transactionEvent>) => {
    const read = readEventSubject(event);
    if (!read.ok) throw new Error('the fixture is not a valid transaction event');
    return read.value;
  };
  const deliveriesOf = async (eventId: string) =>
    (
      await admin.query<{ id: string; webhook_id: string; content_type: string; body: Buffer }>(
        `SELECT id, webhook_id, content_type, body FROM webhook_delivery WHERE event_id = $1`,
        [eventId],
      )
    ).rows;
  const logOf = async (webhookId: string) =>
    (
      await admin.query<{ outcome: string; attempt: number; delivery_id: string }>(
        `SELECT outcome, attempt, delivery_id FROM webhook_log WHERE webhook_id = $1 ORDER BY created_at`,
        [webhookId],
      )
    ).rows;

  it("records a delivery per matching webhook, makes the enabled ones' first attempts and logs them, logs the disabled one as skipped — once per event", async () => {
    const merchantId = await insertMerchant(admin);
    const json = await webhook({ merchantId, url: `${baseUrl}/json` });
    const php = await webhook({ merchantId, url: `${baseUrl}/php`, contentType: 'php-post' });
    const disabled = await webhook({ merchantId, url: `${baseUrl}/disabled`, enabled: false });
    const otherEvents = await webhook({ merchantId, url: `${baseUrl}/payouts`, events: ['payout'] });
    const otherIntegration = await webhook({
      merchantId,
      url: `${baseUrl}/other-integration`,
      integrationId: await admin
        .query(
          `INSERT INTO integration (id, merchant_id, name, api_key_hash, api_key_prefix)
           VALUES ($1, $2, 'I', decode(md5(random()::text), 'hex'), 'pk') RETURNING id`,
          [randomUUID(), merchantId],
        )
        .then((r) => r.rows[0].id as string),
    });
    const event = transactionEvent(merchantId, null);

    // Returns once both attempts are logged: nothing to wait for after it.
    expect(await fanOut.fanOut(event, subjectOf(event))).toBe(3);

    const rows = await deliveriesOf(event.id);
    expect(rows.map((row) => row.webhook_id).sort()).toEqual([json, php, disabled].sort());
    expect(rows.map((row) => row.webhook_id)).not.toContain(otherEvents);
    expect(rows.map((row) => row.webhook_id)).not.toContain(otherIntegration);
    const bodyOf = (webhookId: string) => rows.find((row) => row.webhook_id === webhookId)!.body.toString();
    expect(JSON.parse(bodyOf(json))).toMatchObject({ transaction: { uuid: event.subjectId } });
    expect(bodyOf(php)).toContain(`transaction[uuid]=${event.subjectId}&`);

    // What arrived is what was recorded, and each attempt is logged as delivered.
    const arrived = (path: string) => received.filter((r) => r.path === path);
    expect(arrived('/json').map((r) => r.body)).toEqual([bodyOf(json)]);
    expect(arrived('/php').map((r) => r.body)).toEqual([bodyOf(php)]);
    expect(arrived('/disabled')).toEqual([]);
    const idOf = (webhookId: string) => rows.find((row) => row.webhook_id === webhookId)!.id;
    expect(await logOf(json)).toEqual([{ outcome: 'delivered', attempt: 1, delivery_id: idOf(json) }]);
    expect(await logOf(php)).toEqual([{ outcome: 'delivered', attempt: 1, delivery_id: idOf(php) }]);
    expect(await logOf(disabled)).toEqual([{ outcome: 'skipped', attempt: 1, delivery_id: idOf(disabled) }]);
    // A first attempt that succeeded never became a delivery message.
    expect(tap.messages.filter((m) => m.body.snapshot?.eventId === event.id)).toEqual([]);

    // The same event again (redelivered by the broker after a process stopped): the same deliveries, no second
    // request, no second log entry.
    await fanOut.fanOut(event, subjectOf(event), true);
    expect((await deliveriesOf(event.id)).map((row) => row.id).sort()).toEqual(rows.map((row) => row.id).sort());
    expect(arrived('/json')).toHaveLength(1);
    expect(arrived('/php')).toHaveLength(1);
    for (const webhookId of [json, php, disabled]) expect(await logOf(webhookId)).toHaveLength(1);
  });

  it('returns before a receiver that hangs has answered: its attempt is handed over and still logged when it ends', async () => {
    const merchantId = await insertMerchant(admin);
    delays.set('/hangs', 3_000);
    const hangs = await webhook({ merchantId, url: `${baseUrl}/hangs` });
    const fast = await webhook({ merchantId, url: `${baseUrl}/fast` });
    const event = transactionEvent(merchantId, null);

    expect(await fanOut.fanOut(event, subjectOf(event))).toBe(2);
    const returnedAt = Date.now();

    expect(await logOf(fast)).toEqual([expect.objectContaining({ outcome: 'delivered', attempt: 1 })]);
    const hanging = received.find((r) => r.path === '/hangs')!;
    expect(hanging).toBeDefined();
    expect(hanging.answeredAt).toBeUndefined(); // the fan-out (and so its event's ack) did not wait for it
    await waitFor(async () => (await logOf(hangs)).length > 0, {
      timeoutMs: 15_000,
      what: 'the handed-over attempt logged',
    });
    expect(hanging.answeredAt).toBeGreaterThan(returnedAt);
    expect(await logOf(hangs)).toEqual([expect.objectContaining({ outcome: 'delivered', attempt: 1 })]);
  });

  it('a first attempt that fails fails the fan-out only once the others are logged (its redelivery finds none running)', async () => {
    const merchantId = await insertMerchant(admin);
    delays.set('/slow-sibling', 500);
    const slow = await webhook({ merchantId, url: `${baseUrl}/slow-sibling` });
    // No signing secret: its attempt throws (the webhook cannot be signed for).
    await insertWebhook(admin, { merchantId, url: `${baseUrl}/unsigned` });
    const event = transactionEvent(merchantId, null);

    await expect(fanOut.fanOut(event, subjectOf(event))).rejects.toThrow(/no valid signing secret/);

    expect(await logOf(slow)).toEqual([expect.objectContaining({ outcome: 'delivered', attempt: 1 })]);
    expect(received.filter((r) => r.path === '/unsigned')).toEqual([]);
  });

  it('once shutting down, makes no first attempt: each delivery goes to the delivery queue for another process', async () => {
    const merchantId = await insertMerchant(admin);
    await webhook({ merchantId, url: `${baseUrl}/later` });
    const event = transactionEvent(merchantId, null);

    expect(await stopped.fanOut(event, subjectOf(event))).toBe(1);

    const [row] = await deliveriesOf(event.id);
    const published = await waitFor(() => tap.messages.find((m) => m.body.snapshot?.eventId === event.id));
    expect(published.body.deliveryId).toBe(row.id);
    expect(published.headers[ATTEMPT_HEADER]).toBe(1);
    expect(received.filter((r) => r.path === '/later')).toEqual([]);
  });

  it('records and attempts nothing for a merchant without a matching webhook', async () => {
    const merchantId = await insertMerchant(admin);
    await webhook({ merchantId, url: `${baseUrl}/subscriptions`, events: ['subscription'] });
    const event = transactionEvent(merchantId, null);
    expect(await fanOut.fanOut(event, subjectOf(event))).toBe(0);
    expect(await deliveriesOf(event.id)).toEqual([]);
    expect(received.filter((r) => r.path === '/subscriptions')).toEqual([]);
  });
});
