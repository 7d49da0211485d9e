import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { dataSourceOptions, WEBHOOK_CONFIG_DATABASE } from '#persistence';
import { ReadReplica } from '#platform';
import { insertMerchant, insertWebhook, testEnv } from '#testing';
import { DataSource } from 'typeorm';
import { seedDelivery } from '../../test/support/log-seed.js';
import { WebhookEntity } from '../webhook/webhook.entity.js';
import { WebhookLookup } from '../webhook/webhook.lookup.js';
import { WebhookRepository } from '../webhook/webhook.repository.js';
import { WebhookLogEntity } from './webhook-log.entity.js';
import { WebhookLogExceptionCode } from './webhook-log.exception.js';
import { WebhookLogRepository } from './webhook-log.repository.js';
import { WebhookLogService } from './webhook-log.service.js';

/**
 * A webhook's delivery log as its merchant reads it, on a real database as webhook-config's role (no read replica:
 * every page from the primary): newest first, page by page through the cursor, filtered by outcome; a cursor that is
 * not one refused, another merchant's webhook not found.
 */
describe('WebhookLogService (real PostgreSQL)', () => {
  let seed: DataSource;
  let db: DataSource;
  let logs: WebhookLogService;
  let merchantId: string;
  let webhookId: string;
  const url = 'https://example.com/h';

  beforeAll(async () => {
    seed = await new DataSource(dataSourceOptions({ url: testEnv().databaseUrl, poolSize: 2 })).initialize();
    db = await new DataSource(
      dataSourceOptions({
        url: testEnv().databaseUrl,
        entities: [WebhookEntity, WebhookLogEntity],
        poolSize: 2,
        ...WEBHOOK_CONFIG_DATABASE,
      }),
    ).initialize();
    logs = new WebhookLogService(
      new WebhookLookup(new WebhookRepository(db, db.getRepository(WebhookEntity))),
      new WebhookLogRepository(db.getRepository(WebhookLogEntity)),
      new ReadReplica<DataSource>(),
    );
    merchantId = await insertMerchant(seed);
    webhookId = await insertWebhook(seed, { merchantId, url });
    // Five deliveries a minute apart, the second and fourth failed.
    const start = Date.now() - 3_600_000;
    for (let i = 0; i < 5; i += 1)
      await seedDelivery(seed, { id: webhookId, merchantId, url }, [
        { status: i % 2 === 1 ? 500 : 200, createdAt: new Date(start + i * 60_000) },
      ]);
  });
  afterAll(async () => {
    await db.destroy();
    await seed.destroy();
  });

  it('lists the log newest first, page by page, until the last page has no cursor', async () => {
    const first = await logs.list(merchantId, webhookId, { limit: 2 });
    expect(first.data).toHaveLength(2);
    expect(first.nextCursor).not.toBeNull();
    const second = await logs.list(merchantId, webhookId, { limit: 2, cursor: first.nextCursor! });
    const third = await logs.list(merchantId, webhookId, { limit: 2, cursor: second.nextCursor! });
    expect(third.data).toHaveLength(1);
    expect(third.nextCursor).toBeNull();
    const times = [...first.data, ...second.data, ...third.data].map((entry) => entry.createdAt);
    expect(times).toEqual([...times].sort().reverse());
    expect(new Set([...first.data, ...second.data, ...third.data].map((entry) => entry.id)).size).toBe(5);
  });

  it('filters by outcome', async () => {
    const failed = await logs.list(merchantId, webhookId, { outcome: 'failed' });
    expect(failed.data.map((entry) => [entry.outcome, entry.status])).toEqual([
      ['failed', 500],
      ['failed', 500],
    ]);
  });

  it("refuses a cursor that is not one, and finds no other merchant's webhook", async () => {
    await expect(logs.list(merchantId, webhookId, { cursor: 'not-a-cursor' })).rejects.toMatchObject({
      code: WebhookLogExceptionCode.INVALID_CURSOR,
    });
    await expect(logs.list(await insertMerchant(seed), webhookId, {})).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
