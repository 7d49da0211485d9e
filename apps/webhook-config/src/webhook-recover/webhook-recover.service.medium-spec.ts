import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUIDv7 } from 'node:crypto';
import { AmqpClient, EXCHANGES, type RecoverCommand } from '#messaging';
import { dataSourceOptions, WEBHOOK_CONFIG_DATABASE } from '#persistence';
import { AmqpTap, appTestEnv, insertMerchant, insertWebhook, testEnv } from '#testing';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { loadWebhookConfigConfig } from '../config/webhook-config.config.js';
import type { WebhookChangePublisher } from '../webhook/webhook-change.publisher.js';
import { WebhookEntity } from '../webhook/webhook.entity.js';
import { WebhookLookup } from '../webhook/webhook.lookup.js';
import { WebhookRepository } from '../webhook/webhook.repository.js';
import { RecoverCommandPublisher } from './recover-command.publisher.js';
import { RecoverRef } from './recover-ref.entity.js';
import { WebhookRecoverExceptionCode } from './webhook-recover.exception.js';
import { WebhookRecoverRepository } from './webhook-recover.repository.js';
import { WebhookRecoverService } from './webhook-recover.service.js';

const HOUR = 3_600_000;

/**
 * A merchant's "Send again" (recover) as webhook-config checks it, on a real database as its role and a real broker:
 * `since` in the past and within the retention, an enabled webhook, one recover at a time (a running one named), no
 * command when nothing is to be sent, and the progress read through the dispatcher's view. The recover itself is the
 * dispatcher's (its own specs); a running one is written here as the dispatcher records it.
 */
describe('WebhookRecoverService (real PostgreSQL, RabbitMQ)', () => {
  const admin = new pg.Pool({ connectionString: testEnv().databaseUrl, max: 2 });
  const config = loadWebhookConfigConfig(appTestEnv());
  let db: DataSource;
  let amqp: AmqpClient;
  let tap: AmqpTap<RecoverCommand>;
  let service: WebhookRecoverService;
  let merchantId: string;

  beforeAll(async () => {
    db = await new DataSource(
      dataSourceOptions({
        url: testEnv().databaseUrl,
        entities: [WebhookEntity, RecoverRef],
        poolSize: 2,
        ...WEBHOOK_CONFIG_DATABASE,
      }),
    ).initialize();
    amqp = new AmqpClient({
      url: testEnv().amqpUrl,
      name: 'webhook-recover-spec',
      topology: { retryDelaysMs: config.retryDelaysMs },
    });
    await amqp.waitForConnect();
    tap = await AmqpTap.bind<RecoverCommand>(EXCHANGES.commands, '#');
    const changes = { changed: async () => undefined } as unknown as WebhookChangePublisher;
    service = new WebhookRecoverService(
      new WebhookLookup(new WebhookRepository(db, db.getRepository(WebhookEntity))),
      new WebhookRecoverRepository(db),
      new RecoverCommandPublisher(amqp),
      changes,
      config,
    );
    merchantId = await insertMerchant(admin);
  });
  afterAll(async () => {
    await admin.query(
      `UPDATE delivery.webhook_recover SET state = 'cancelled', finished_at = now() WHERE merchant_id = $1 AND state = 'running'`,
      [merchantId],
    );
    await tap.close();
    await amqp.close();
    await db.destroy();
    await admin.end();
  });

  const codeOf = (work: Promise<unknown>) =>
    work.then(
      () => 'ok',
      (error: { code?: string }) => error.code,
    );
  const commandsFor = (webhookId: string) => tap.messages.filter((m) => m.body.webhookId === webhookId);
  const hourAgo = () => new Date(Date.now() - HOUR).toISOString();

  it('refuses a since without a zone, in the future or beyond the retention', async () => {
    const webhookId = await insertWebhook(admin, { merchantId });
    for (const since of [
      '2026-11-20T08:00:00',
      'yesterday',
      new Date(Date.now() + HOUR).toISOString(),
      new Date(Date.now() - config.logRetentionMs - HOUR).toISOString(),
    ])
      expect(await codeOf(service.start(merchantId, webhookId, since))).toBe(WebhookRecoverExceptionCode.INVALID_SINCE);
  });

  it("refuses a disabled webhook's recover, and finds no other merchant's webhook", async () => {
    const disabled = await insertWebhook(admin, { merchantId, enabled: false });
    expect(await codeOf(service.start(merchantId, disabled, hourAgo()))).toBe(
      WebhookRecoverExceptionCode.WEBHOOK_DISABLED,
    );
    const stranger = await insertMerchant(admin);
    expect(await codeOf(service.start(stranger, disabled, hourAgo()))).toBe('NOT_FOUND');
  });

  it('answers a count of 0 and asks the dispatcher for nothing when nothing failed since', async () => {
    const webhookId = await insertWebhook(admin, { merchantId });
    expect(await service.start(merchantId, webhookId, hourAgo())).toEqual({ id: null, count: 0 });
    expect(await codeOf(service.progress(merchantId, webhookId))).toBe(WebhookRecoverExceptionCode.NO_RECOVER);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(commandsFor(webhookId)).toEqual([]);
  });

  it('refuses a second recover while one runs, naming it, and shows its progress', async () => {
    const webhookId = await insertWebhook(admin, { merchantId });
    const recoverId = randomUUIDv7();
    const since = new Date(Date.now() - 2 * HOUR);
    // Leased to nobody's job: no recover job of another suite on this database works on it.
    await admin.query(
      `INSERT INTO delivery.webhook_recover (id, webhook_id, merchant_id, since, state, total, started_at, lease_owner,
                                             lease_until)
       VALUES ($1, $2, $3, $4, 'running', 7, now(), 'spec', now() + interval '1 hour')`,
      [recoverId, webhookId, merchantId, since],
    );
    const refused = await service.start(merchantId, webhookId, hourAgo()).catch((error) => error);
    expect(refused.code).toBe(WebhookRecoverExceptionCode.RECOVER_RUNNING);
    expect(refused.message).toContain(recoverId);
    expect(await service.progress(merchantId, webhookId)).toMatchObject({
      id: recoverId,
      state: 'running',
      since: since.toISOString(),
      total: 7,
      sent: 0,
      finishedAt: null,
    });
    expect(commandsFor(webhookId)).toEqual([]);
  });

  it('answers a finished recover as it is on cancel, without a command', async () => {
    const webhookId = await insertWebhook(admin, { merchantId });
    const recoverId = randomUUIDv7();
    await admin.query(
      `INSERT INTO delivery.webhook_recover (id, webhook_id, merchant_id, since, state, total, started_at, finished_at)
       VALUES ($1, $2, $3, now() - interval '2 hours', 'finished', 3, now() - interval '1 hour', now())`,
      [recoverId, webhookId, merchantId],
    );
    expect(await service.cancel(merchantId, webhookId)).toMatchObject({ id: recoverId, state: 'finished' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(commandsFor(webhookId)).toEqual([]);
  });
});
