import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { dataSourceOptions, WebhookLogEntity } from '#persistence';
import { testEnv } from '#testing';
import { DataSource } from 'typeorm';
import { seedDeliveryRow } from '../../test/support/log-seed.js';
import { WebhookLogRepository } from './webhook-log.repository.js';

describe('WebhookLogRepository (real PostgreSQL)', () => {
  let db: DataSource;
  let logs: WebhookLogRepository;
  let webhookId: string;

  beforeAll(async () => {
    db = new DataSource(dataSourceOptions({ url: testEnv().databaseUrl, entities: [WebhookLogEntity], poolSize: 2 }));
    await db.initialize();
    logs = new WebhookLogRepository(db.getRepository(WebhookLogEntity));
    const merchantId = randomUUID();
    webhookId = randomUUID();
    await db.query(`INSERT INTO merchant (id, name) VALUES ($1, 'Logs')`, [merchantId]);
    await db.query(
      `INSERT INTO webhook (id, merchant_id, name, url, content_type, version, retry_on_error, events) VALUES ($1, $2, 'w', 'https://93.184.215.14/', 'json', '2026-08-20', true, '{transaction}')`,
      [webhookId, merchantId],
    );
    const { deliveryId } = await seedDeliveryRow(db, { id: webhookId, merchantId, url: 'https://93.184.215.14/' });
    // 2,000 attempts over a few seconds, many sharing a microsecond timestamp.
    await db.query(
      `INSERT INTO webhook_log (id, delivery_id, webhook_id, attempt, event_type, event_id, request, status, duration_ms, created_at)
       SELECT gen_random_uuid(), $1, $2, 1, 'transaction', gen_random_uuid(), '{"url":"u","contentType":"json","version":"v","psp":null,"type":null,"uuid":"x"}',
              CASE WHEN i % 3 = 0 THEN 500 ELSE 200 END, 10, timestamptz '2026-11-22 10:00:00+00' + make_interval(secs => (i / 4) * 0.000137)
         FROM generate_series(1, 2000) AS i`,
      [deliveryId, webhookId],
    );
    await db.query('ANALYZE webhook_log');
  });
  afterAll(async () => {
    await db.destroy();
  });

  it('walks every entry exactly once, newest first, through pages of any size', async () => {
    for (const limit of [1, 7, 100]) {
      const seen: WebhookLogEntity[] = [];
      let after;
      for (;;) {
        const page = await logs.page(webhookId, { limit, after });
        seen.push(...page.rows);
        if (!page.next) break;
        after = page.next;
        if (limit === 1 && seen.length >= 300) break; // enough to prove the point at page size 1
      }
      if (limit !== 1) expect(seen).toHaveLength(2000);
      expect(new Set(seen.map((row) => row.id)).size).toBe(seen.length);
      for (let i = 1; i < seen.length; i += 1)
        expect(seen[i - 1].createdAt.getTime()).toBeGreaterThanOrEqual(seen[i].createdAt.getTime());
    }
  });

  it('filters by outcome within the keyset', async () => {
    const failures: WebhookLogEntity[] = [];
    let after;
    do {
      const page = await logs.page(webhookId, { limit: 50, after, outcome: 'failure' });
      failures.push(...page.rows);
      after = page.next ?? undefined;
    } while (after);
    expect(failures).toHaveLength(666);
    expect(failures.every((row) => row.status === 500)).toBe(true);
  });

  it('reads a deep page through the (webhook_id, created_at, id) index, not by counting past earlier rows', async () => {
    const deep = (
      await db.query(
        `SELECT created_at::text AS t, id FROM webhook_log WHERE webhook_id = $1 ORDER BY created_at, id LIMIT 1 OFFSET 20`,
        [webhookId],
      )
    )[0];
    const plan: Array<{ 'QUERY PLAN': string }> = await db.query(
      `EXPLAIN SELECT * FROM webhook_log WHERE webhook_id = $1 AND (created_at, id) < ($2::timestamptz, $3::uuid) ORDER BY created_at DESC, id DESC LIMIT 21`,
      [webhookId, deep.t, deep.id],
    );
    const text = plan.map((row) => row['QUERY PLAN']).join('\n');
    expect(text).toContain('webhook_log_webhook_idx');
    // The cursor bounds the index scan itself (an Index Cond, not a Filter over earlier rows). Whether PostgreSQL
    // then walks the index backwards or sorts the ~20 rows it found depends on its statistics: both are cheap.
    expect(text).toMatch(/Index Cond: \(\(webhook_id = .*\) AND \(ROW\(created_at, id\) < ROW\(/);
    expect(text).not.toMatch(/Filter:/);
  });
});
