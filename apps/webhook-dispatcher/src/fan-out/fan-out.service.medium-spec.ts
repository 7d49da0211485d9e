import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import {
  AmqpClient,
  ATTEMPT_HEADER,
  EXCHANGES,
  readEventSubject,
  ROUTING_KEYS,
  type DeliveryMessage,
} from '#messaging';
import { PlatformMetrics } from '#platform';
import { AmqpTap, appTestEnv, insertMerchant, insertWebhook, transactionEvent, waitFor } from '#testing';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { DatabaseRetry } from '../common/database-retry.js';
import { loadWebhookDispatcherConfig } from '../config/webhook-dispatcher.config.js';
import type { DeliveryLogWriter } from '../delivery/delivery-log.writer.js';
import { DispatcherMetrics } from '../metrics/dispatcher.metrics.js';
import { WebhookCache } from '../webhook/webhook.cache.js';
import { WebhookRepository } from '../webhook/webhook.repository.js';
import { FanOutService } from './fan-out.service.js';
import { dispatcherSpecInfrastructure, type DispatcherSpecBroker } from '../../test/spec-infrastructure.js';
import { deliveryLogWriter, deliveryRepository } from '../../test/attempt-record.fixture.js';

/**
 * One event in, one delivery per matching webhook out, on a real database and broker: the webhooks come from
 * webhook-config's table through the dispatcher's view and cache, the deliveries are recorded, the enabled webhooks'
 * published (a tap of the deliveries exchange sees them) and the disabled ones' logged as skipped.
 * On a database and vhost of its own (provisionOwnInfrastructure): its deliveries, of webhooks without a secret,
 * stay off the run's queues, which later suites' dispatchers consume.
 */
describe('FanOutService (real PostgreSQL, RabbitMQ)', () => {
  let infra: DispatcherSpecBroker;
  let admin: pg.Pool;
  let db: DataSource;
  let amqp: AmqpClient;
  let log: DeliveryLogWriter;
  let fanOut: FanOutService;
  let tap: AmqpTap<DeliveryMessage>;

  beforeAll(async () => {
    const config = loadWebhookDispatcherConfig(appTestEnv());
    infra = await dispatcherSpecInfrastructure('fan-out', { topology: config.topology });
    ({ admin, db, amqp } = infra);
    tap = await AmqpTap.bind<DeliveryMessage>(EXCHANGES.deliveries, ROUTING_KEYS.deliver, infra.own.amqpUrl);
    const retry = new DatabaseRetry();
    // Health reports are not what this suite is about: nobody is told.
    log = deliveryLogWriter(db, retry);
    fanOut = new FanOutService(
      new WebhookCache(new WebhookRepository(db, retry), config),
      deliveryRepository(db, retry),
      amqp,
      new DispatcherMetrics(new PlatformMetrics()),
      log,
    );
  });
  afterAll(async () => {
    await log?.onApplicationShutdown();
    await tap?.close();
    await infra?.close();
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

  it('records a delivery per matching webhook, publishes the enabled ones, logs the disabled one as skipped — once per event', async () => {
    const merchantId = await insertMerchant(admin);
    const json = await insertWebhook(admin, { merchantId });
    const php = await insertWebhook(admin, { merchantId, contentType: 'php-post' });
    const disabled = await insertWebhook(admin, { merchantId, enabled: false });
    const otherEvents = await insertWebhook(admin, { merchantId, events: ['payout'] });
    const otherIntegration = await insertWebhook(admin, {
      merchantId,
      integrationId: await admin
        .query(
          `INSERT INTO integration (id, merchant_id, name, api_key_hash, api_key_prefix)
           VALUES ($1, $2, 'I', decode(md5(random()::text), 'hex'), 'pk') RETURNING id`,
          [randomUUID(), merchantId],
        )
        .then((r) => r.rows[0].id as string),
    });
    const event = transactionEvent(merchantId, null);

    expect(await fanOut.fanOut(event, subjectOf(event))).toBe(3);

    const rows = await deliveriesOf(event.id);
    expect(rows.map((row) => row.webhook_id).sort()).toEqual([json, php, disabled].sort());
    expect(rows.map((row) => row.webhook_id)).not.toContain(otherEvents);
    expect(rows.map((row) => row.webhook_id)).not.toContain(otherIntegration);
    const bodyOf = (webhookId: string) => rows.find((row) => row.webhook_id === webhookId)!.body.toString();
    expect(JSON.parse(bodyOf(json))).toMatchObject({ transaction: { uuid: event.subjectId } });
    expect(bodyOf(php)).toContain(`transaction[uuid]=${event.subjectId}&`);

    const published = await waitFor(() => {
      const mine = tap.messages.filter((m) => m.body.snapshot?.eventId === event.id);
      return mine.length >= 2 && mine;
    });
    expect(published.map((m) => m.body.snapshot!.webhookId).sort()).toEqual([json, php].sort());
    expect(published.every((m) => m.headers[ATTEMPT_HEADER] === 1)).toBe(true);
    for (const message of published)
      expect(message.body.deliveryId).toBe(rows.find((row) => row.webhook_id === message.body.snapshot!.webhookId)!.id);

    const skipped = await admin.query(`SELECT outcome, attempt FROM webhook_log WHERE webhook_id = $1`, [disabled]);
    expect(skipped.rows).toEqual([{ outcome: 'skipped', attempt: 1 }]);

    // The same event again (redelivered by the broker): the same deliveries, no second log entry.
    await fanOut.fanOut(event, subjectOf(event));
    expect((await deliveriesOf(event.id)).map((row) => row.id).sort()).toEqual(rows.map((row) => row.id).sort());
    expect((await admin.query(`SELECT 1 FROM webhook_log WHERE webhook_id = $1`, [disabled])).rowCount).toBe(1);
  });

  it('records and publishes nothing for a merchant without a matching webhook', async () => {
    const merchantId = await insertMerchant(admin);
    await insertWebhook(admin, { merchantId, events: ['subscription'] });
    const event = transactionEvent(merchantId, null);
    expect(await fanOut.fanOut(event, subjectOf(event))).toBe(0);
    expect(await deliveriesOf(event.id)).toEqual([]);
  });
});
