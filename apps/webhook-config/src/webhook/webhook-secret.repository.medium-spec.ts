import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { dataSourceOptions } from '#persistence';
import { insertWebhook, testEnv } from '#testing';
import { DataSource } from 'typeorm';
import { WebhookSecretRepository } from './webhook-secret.repository.js';
import { WebhookSecretEntity } from './webhook-secret.entity.js';

const DAY_MS = 24 * 3600_000;

describe('WebhookSecretRepository (real PostgreSQL)', () => {
  let db: DataSource;
  let secrets: WebhookSecretRepository;
  let merchantId: string;

  beforeAll(async () => {
    db = new DataSource(
      dataSourceOptions({ url: testEnv().databaseUrl, entities: [WebhookSecretEntity], poolSize: 10 }),
    );
    await db.initialize();
    secrets = new WebhookSecretRepository(db, db.getRepository(WebhookSecretEntity));
    merchantId = randomUUID();
    await db.query(`INSERT INTO merchant (id, name) VALUES ($1, 'Secrets')`, [merchantId]);
  });
  afterAll(async () => {
    await db.destroy();
  });

  async function webhookWithSecret(): Promise<{ webhookId: string; firstId: string }> {
    const webhookId = randomUUID();
    const firstId = randomUUID();
    await insertWebhook(db, { id: webhookId, merchantId, url: 'https://93.184.215.14/' });
    await db.query(`INSERT INTO webhook_secret (id, webhook_id, ciphertext) VALUES ($1, $2, '\\x01')`, [
      firstId,
      webhookId,
    ]);
    return { webhookId, firstId };
  }

  it('gives the current secret the grace period and makes the new one current', async () => {
    const { webhookId, firstId } = await webhookWithSecret();
    const nextId = randomUUID();
    await secrets.rotate(webhookId, { id: nextId, ciphertext: Buffer.from([2]) }, DAY_MS);
    const expiresAt = (await secrets.previousExpiry(webhookId))!;
    expect(Math.abs(expiresAt.getTime() - (Date.now() + DAY_MS))).toBeLessThan(60_000);
    expect((await secrets.findCurrent(webhookId))?.id).toBe(nextId);
    const [old] = await db.query(`SELECT expires_at FROM webhook_secret WHERE id = $1`, [firstId]);
    expect(old.expires_at.getTime()).toBe(expiresAt.getTime());
  });

  it('deletes secrets that have stopped signing, and keeps the ones still in their grace period', async () => {
    const { webhookId } = await webhookWithSecret();
    const expired = randomUUID();
    const stillValid = randomUUID();
    await db.query(
      `INSERT INTO webhook_secret (id, webhook_id, ciphertext, expires_at) VALUES ($1, $2, '\\x03', now() - interval '1 minute')`,
      [expired, webhookId],
    );
    await db.query(
      `INSERT INTO webhook_secret (id, webhook_id, ciphertext, expires_at) VALUES ($1, $2, '\\x04', now() + interval '3 hours')`,
      [stillValid, webhookId],
    );
    await secrets.rotate(webhookId, { id: randomUUID(), ciphertext: Buffer.from([5]) }, DAY_MS);
    const ids = (await db.query(`SELECT id FROM webhook_secret WHERE webhook_id = $1`, [webhookId])).map(
      (row: { id: string }) => row.id,
    );
    expect(ids).not.toContain(expired);
    expect(ids).toContain(stillValid);
    expect(ids).toHaveLength(3);
  });

  it('serialises concurrent rotations on the webhook row: always exactly one current secret', async () => {
    const { webhookId } = await webhookWithSecret();
    await Promise.all(
      Array.from({ length: 6 }, () =>
        secrets.rotate(webhookId, { id: randomUUID(), ciphertext: Buffer.from([6]) }, DAY_MS),
      ),
    );
    const [{ current, total }] = await db.query(
      `SELECT count(*) FILTER (WHERE expires_at IS NULL)::int AS current, count(*)::int AS total FROM webhook_secret WHERE webhook_id = $1`,
      [webhookId],
    );
    expect(current).toBe(1);
    expect(total).toBe(7);
  });
});
