import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID, randomUUIDv7 } from 'node:crypto';
import { ATTEMPT_HEADER, EXCHANGES, ROUTING_KEYS, type DeliveryMessage, type DispatcherCommand } from '#messaging';
import { AmqpTap, appTestEnv, insertDelivery, insertMerchant, insertWebhook, waitFor } from '#testing';
import pg from 'pg';
import { DatabaseRetry } from '../common/database-retry.js';
import { loadWebhookDispatcherConfig } from '../config/webhook-dispatcher.config.js';
import { DeliveryPublisher } from '../delivery/delivery.publisher.js';
import { WebhookRepository } from '../webhook/webhook.repository.js';
import { ManualDeliveryService } from './manual-delivery.service.js';
import { dispatcherSpecInfrastructure, type DispatcherSpecBroker } from '../../test/spec-infrastructure.js';
import { deliveryRepository } from '../../test/attempt-record.fixture.js';

/**
 * webhook-config's "Send test" and "Resend" as the dispatcher carries them out, on a real database and broker (a tap
 * of the deliveries exchange sees the attempts queued): a test delivery recorded once under the id asked for, rendered
 * for the webhook as it is now; resends numbered one after another; nothing for another merchant's webhook or a
 * delivery that does not exist.
 * On a database and vhost of its own (provisionOwnInfrastructure): its attempts, of webhooks without a secret,
 * stay off the run's queues, which later suites' dispatchers consume.
 */
describe('ManualDeliveryService (real PostgreSQL, RabbitMQ)', () => {
  let infra: DispatcherSpecBroker;
  let admin: pg.Pool;
  let tap: AmqpTap<DeliveryMessage>;
  let manual: ManualDeliveryService;
  let merchantId: string;

  beforeAll(async () => {
    const config = loadWebhookDispatcherConfig(appTestEnv());
    infra = await dispatcherSpecInfrastructure('manual-delivery', { topology: config.topology });
    const { db, amqp } = infra;
    admin = infra.admin;
    tap = await AmqpTap.bind<DeliveryMessage>(EXCHANGES.deliveries, ROUTING_KEYS.deliver, infra.own.amqpUrl);
    const retry = new DatabaseRetry();
    manual = new ManualDeliveryService(
      new WebhookRepository(db, retry),
      deliveryRepository(db, retry),
      new DeliveryPublisher(amqp, config),
    );
    merchantId = await insertMerchant(admin);
  });
  afterAll(async () => {
    await tap?.close();
    await infra?.close();
  });

  const command = (type: DispatcherCommand['type'], webhookId: string, deliveryId: string): DispatcherCommand => ({
    v: 1,
    type,
    deliveryId,
    webhookId,
    merchantId,
    requestedAt: new Date().toISOString(),
  });
  const queuedFor = (deliveryId: string) => tap.messages.filter((m) => m.body.deliveryId === deliveryId);
  const rowsOf = async (deliveryId: string) =>
    (
      await admin.query<{ content_type: string; body: Buffer; retry_on_error: boolean }>(
        `SELECT content_type, body, retry_on_error FROM webhook_delivery WHERE id = $1`,
        [deliveryId],
      )
    ).rows;

  it('sends the sample of the kind the command asks for, of those the webhook selects (the Events page)', async () => {
    const webhookId = await insertWebhook(admin, { merchantId, events: ['transaction', 'subscription', 'payout'] });
    const asked = randomUUIDv7();
    await manual.test({ ...command('webhook.test', webhookId, asked), eventType: 'subscription' });
    expect(JSON.parse((await rowsOf(asked))[0].body.toString())).toHaveProperty('subscription');

    // No kind asked for: the first the webhook selects, as before.
    const plain = randomUUIDv7();
    await manual.test(command('webhook.test', webhookId, plain));
    expect(JSON.parse((await rowsOf(plain))[0].body.toString())).toHaveProperty('transaction');
  });

  it('records a test delivery once under the id asked for, rendered for the webhook, and queues its one attempt', async () => {
    const webhookId = await insertWebhook(admin, { merchantId, contentType: 'php-post', events: ['payout'] });
    const deliveryId = randomUUIDv7();
    await manual.test(command('webhook.test', webhookId, deliveryId));
    const [row] = await rowsOf(deliveryId);
    expect(row).toMatchObject({ content_type: 'php-post', retry_on_error: false });
    expect(row.body.toString()).toMatch(/^payout\[/); // a sample of the one kind it receives, form-encoded
    const [queued] = await waitFor(() => queuedFor(deliveryId).length > 0 && queuedFor(deliveryId));
    expect(queued.body).toMatchObject({ deliveryId, manual: true, snapshot: { webhookId, eventType: 'payout' } });
    expect(queued.headers[ATTEMPT_HEADER]).toBe(1);

    // The same command again: the same delivery, no second attempt on the delivery queue (a stand-in checks the log).
    await manual.test(command('webhook.test', webhookId, deliveryId));
    expect(await rowsOf(deliveryId)).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(queuedFor(deliveryId)).toHaveLength(1);
  });

  it("makes no test delivery for another merchant's webhook", async () => {
    const webhookId = await insertWebhook(admin, { merchantId: await insertMerchant(admin) });
    const deliveryId = randomUUIDv7();
    await manual.test(command('webhook.test', webhookId, deliveryId));
    expect(await rowsOf(deliveryId)).toEqual([]);
  });

  it('numbers resends one after another, each queued once, and drops a resend of a delivery that does not exist', async () => {
    const webhookId = await insertWebhook(admin, { merchantId });
    const deliveryId = await insertDelivery(admin, { webhookId, merchantId });
    await Promise.all([1, 2, 3].map(() => manual.resend(command('delivery.resend', webhookId, deliveryId))));
    const queued = await waitFor(() => queuedFor(deliveryId).length >= 3 && queuedFor(deliveryId));
    const attempts = queued.map((m) => m.headers[ATTEMPT_HEADER] as number).sort((a, b) => a - b);
    expect(new Set(attempts).size).toBe(3);
    expect(attempts[2] - attempts[0]).toBe(2);
    expect(queued.every((m) => m.body.manual === true && m.body.snapshot === undefined)).toBe(true);

    const missing = randomUUIDv7();
    await manual.resend(command('delivery.resend', webhookId, missing));
    await manual.resend(command('delivery.resend', randomUUID(), deliveryId)); // not this webhook's delivery
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(queuedFor(missing)).toEqual([]);
    expect(queuedFor(deliveryId)).toHaveLength(3);
  });
});
