import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUIDv7 } from 'node:crypto';
import { isUUID } from 'class-validator';
import { MAX_ATTEMPTS_PER_DELIVERY } from '#domain';
import { AmqpClient, EXCHANGES, type DispatcherCommand } from '#messaging';
import { dataSourceOptions, WEBHOOK_CONFIG_DATABASE } from '#persistence';
import { AmqpTap, appTestEnv, insertMerchant, insertWebhook, testEnv, waitFor } from '#testing';
import { DataSource } from 'typeorm';
import { seedDelivery } from '../../test/support/log-seed.js';
import { loadWebhookConfigConfig } from '../config/webhook-config.config.js';
import { WebhookLogEntity } from '../webhook-log/webhook-log.entity.js';
import { WebhookLogRepository } from '../webhook-log/webhook-log.repository.js';
import { WebhookEntity } from '../webhook/webhook.entity.js';
import { WebhookLookup } from '../webhook/webhook.lookup.js';
import { WebhookRepository } from '../webhook/webhook.repository.js';
import { DeliveryCommandPublisher } from './delivery-command.publisher.js';
import { DeliveryRef } from './delivery-ref.entity.js';
import { DeliveryRefRepository } from './delivery-ref.repository.js';
import { WebhookDeliveryExceptionCode } from './webhook-delivery.exception.js';
import { WebhookDeliveryService } from './webhook-delivery.service.js';

/**
 * "Send test" and "Resend" on a real database (as webhook-config's role) and broker: what the merchant may ask for
 * (their webhook, its log entry, a delivery still kept and under the attempt limit), and the dispatcher command it
 * publishes (a tap of webhooks.commands sees it).
 */
describe('WebhookDeliveryService (real PostgreSQL, RabbitMQ)', () => {
  const config = loadWebhookConfigConfig(appTestEnv());
  let seed: DataSource;
  let db: DataSource;
  let amqp: AmqpClient;
  let tap: AmqpTap<DispatcherCommand>;
  let service: WebhookDeliveryService;
  let merchantId: string;

  beforeAll(async () => {
    seed = await new DataSource(dataSourceOptions({ url: testEnv().databaseUrl, poolSize: 2 })).initialize();
    db = await new DataSource(
      dataSourceOptions({
        url: testEnv().databaseUrl,
        entities: [WebhookEntity, WebhookLogEntity, DeliveryRef],
        poolSize: 2,
        ...WEBHOOK_CONFIG_DATABASE,
      }),
    ).initialize();
    amqp = new AmqpClient({
      url: testEnv().amqpUrl,
      name: 'webhook-delivery-spec',
      topology: { retryDelaysMs: config.retryDelaysMs },
    });
    await amqp.waitForConnect();
    tap = await AmqpTap.bind<DispatcherCommand>(EXCHANGES.commands, '#');
    service = new WebhookDeliveryService(
      new WebhookLookup(new WebhookRepository(db, db.getRepository(WebhookEntity))),
      new WebhookLogRepository(db.getRepository(WebhookLogEntity)),
      new DeliveryRefRepository(db.getRepository(DeliveryRef)),
      new DeliveryCommandPublisher(amqp),
      config,
    );
    merchantId = await insertMerchant(seed);
  });
  afterAll(async () => {
    await tap.close();
    await amqp.close();
    await db.destroy();
    await seed.destroy();
  });

  const url = 'https://example.com/h';
  const commandsFor = (deliveryId: string) => tap.messages.filter((m) => m.body.deliveryId === deliveryId);
  const codeOf = (work: Promise<unknown>) =>
    work.then(
      () => 'sent',
      (error: { code?: string }) => error.code,
    );

  it('asks the dispatcher for a test delivery under a new v7 id, for its own webhook only', async () => {
    const webhookId = await insertWebhook(seed, { merchantId, url });
    const { deliveryId } = await service.sendTest(merchantId, webhookId);
    expect(isUUID(deliveryId, 7)).toBe(true);
    const [command] = await waitFor(() => commandsFor(deliveryId).length > 0 && commandsFor(deliveryId));
    expect(command.body).toMatchObject({ type: 'webhook.test', deliveryId, webhookId, merchantId });
    await expect(service.sendTest(await insertMerchant(seed), webhookId)).rejects.toThrow();
  });

  it('sends the sample of a chosen kind (the event catalog) only to a webhook that selects it', async () => {
    const webhookId = await insertWebhook(seed, { merchantId, url, events: ['subscription', 'payout'] });
    const { deliveryId } = await service.sendTest(merchantId, webhookId, 'payout');
    const [command] = await waitFor(() => commandsFor(deliveryId).length > 0 && commandsFor(deliveryId));
    expect(command.body).toMatchObject({
      type: 'webhook.test',
      deliveryId,
      webhookId,
      merchantId,
      eventType: 'payout',
    });

    const before = tap.messages.length;
    const refused = await service.sendTest(merchantId, webhookId, 'transaction').catch((error: unknown) => error);
    expect(refused).toMatchObject({
      code: WebhookDeliveryExceptionCode.EVENT_TYPE_NOT_SELECTED,
      errors: [{ field: 'eventType', message: expect.stringContaining('does not receive transaction events') }],
    });
    // Another merchant's webhook: not found, whatever the kind.
    await expect(service.sendTest(await insertMerchant(seed), webhookId, 'payout')).rejects.toThrow();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(tap.messages.slice(before).filter((m) => m.body.webhookId === webhookId)).toEqual([]);
  });

  it("resends a log entry's delivery once more, under the limit", async () => {
    const webhookId = await insertWebhook(seed, { merchantId, url });
    const { deliveryId, logIds } = await seedDelivery(seed, { id: webhookId, merchantId, url }, [
      { status: 500, createdAt: new Date(Date.now() - 60_000) },
    ]);
    expect(await service.resend(merchantId, webhookId, logIds[0])).toEqual({ deliveryId });
    const [command] = await waitFor(() => commandsFor(deliveryId).length > 0 && commandsFor(deliveryId));
    expect(command.body).toMatchObject({ type: 'delivery.resend', deliveryId, webhookId, merchantId });
  });

  it('refuses an unknown log entry, and a delivery that reached the attempt limit, publishing nothing', async () => {
    const webhookId = await insertWebhook(seed, { merchantId, url });
    expect(await codeOf(service.resend(merchantId, webhookId, randomUUIDv7()))).toBe(
      WebhookDeliveryExceptionCode.LOG_ENTRY_NOT_FOUND,
    );
    const start = Date.now() - 3_600_000;
    const { deliveryId, logIds } = await seedDelivery(
      seed,
      { id: webhookId, merchantId, url },
      Array.from({ length: MAX_ATTEMPTS_PER_DELIVERY }, (_, i) => ({ status: 500, createdAt: new Date(start + i) })),
    );
    expect(await codeOf(service.resend(merchantId, webhookId, logIds[0]))).toBe(
      WebhookDeliveryExceptionCode.RESEND_LIMIT_REACHED,
    );
    // Another webhook's log entry is not found through this one.
    const other = await insertWebhook(seed, { merchantId, url });
    expect(await codeOf(service.resend(merchantId, other, logIds[0]))).toBe(
      WebhookDeliveryExceptionCode.LOG_ENTRY_NOT_FOUND,
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(commandsFor(deliveryId)).toEqual([]);
  });
});
