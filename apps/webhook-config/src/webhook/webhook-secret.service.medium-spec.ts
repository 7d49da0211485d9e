import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes, randomUUID } from 'node:crypto';
import { dataSourceOptions, WEBHOOK_CONFIG_DATABASE } from '#persistence';
import { SecretCipher } from '#platform';
import { insertMerchant, insertWebhook, testEnv } from '#testing';
import pg from 'pg';
import { DataSource } from 'typeorm';
import type { WebhookChangePublisher } from './webhook-change.publisher.js';
import { WebhookEntity } from './webhook.entity.js';
import { WebhookLookup } from './webhook.lookup.js';
import { WebhookRepository } from './webhook.repository.js';
import { WebhookSecretEntity } from './webhook-secret.entity.js';
import { WebhookSecretRepository } from './webhook-secret.repository.js';
import { ROTATION_GRACE_MS, WebhookSecretService } from './webhook-secret.service.js';

/**
 * Webhook signing secrets on a real database as webhook-config's role: encrypted at rest and bound to their webhook,
 * revealed only to its merchant, and a rotation that keeps the old one signing for the grace period and announces the
 * change (the announcement is our own publisher, recorded here).
 */
describe('WebhookSecretService (real PostgreSQL)', () => {
  const admin = new pg.Pool({ connectionString: testEnv().databaseUrl, max: 2 });
  const cipher = new SecretCipher(randomBytes(32));
  const announced: string[] = [];
  let db: DataSource;
  let service: WebhookSecretService;

  beforeAll(async () => {
    db = await new DataSource(
      dataSourceOptions({
        url: testEnv().databaseUrl,
        entities: [WebhookEntity, WebhookSecretEntity],
        poolSize: 2,
        ...WEBHOOK_CONFIG_DATABASE,
      }),
    ).initialize();
    const changes = { changed: async (_merchantId: string, webhookId: string) => void announced.push(webhookId) };
    service = new WebhookSecretService(
      cipher,
      new WebhookSecretRepository(db, db.getRepository(WebhookSecretEntity)),
      new WebhookLookup(new WebhookRepository(db, db.getRepository(WebhookEntity))),
      changes as unknown as WebhookChangePublisher,
    );
  });
  afterAll(async () => {
    await db.destroy();
    await admin.end();
  });

  /** A webhook with a secret issued by the service, stored as webhook-config stores it. */
  async function webhookWithSecret(merchantId: string): Promise<{ webhookId: string; secret: string }> {
    const webhookId = await insertWebhook(admin, { merchantId });
    const { plaintext, row } = service.issue(webhookId);
    await admin.query(`INSERT INTO webhook_secret (id, webhook_id, ciphertext) VALUES ($1, $2, $3)`, [
      row.id,
      row.webhookId,
      row.ciphertext,
    ]);
    return { webhookId, secret: plaintext };
  }

  it('stores a secret encrypted and bound to its webhook, and reveals it to its merchant', async () => {
    const merchantId = await insertMerchant(admin);
    const { webhookId, secret } = await webhookWithSecret(merchantId);
    const [{ ciphertext }] = (
      await admin.query(`SELECT ciphertext FROM webhook_secret WHERE webhook_id = $1`, [webhookId])
    ).rows;
    expect((ciphertext as Buffer).toString('latin1')).not.toContain(secret);
    expect(() => cipher.decrypt(ciphertext, randomUUID())).toThrow();
    expect(await service.reveal(merchantId, webhookId)).toEqual({ secret, previousSecretExpiresAt: null });
  });

  it("reveals and rotates nothing of another merchant's webhook", async () => {
    const { webhookId } = await webhookWithSecret(await insertMerchant(admin));
    const stranger = await insertMerchant(admin);
    await expect(service.reveal(stranger, webhookId)).rejects.toThrow();
    await expect(service.rotate(stranger, webhookId)).rejects.toThrow();
    expect(announced).not.toContain(webhookId);
  });

  it('rotates to a new secret, keeps the old one signing for the grace period, and announces the change', async () => {
    const merchantId = await insertMerchant(admin);
    const { webhookId, secret } = await webhookWithSecret(merchantId);
    const before = Date.now();
    const rotated = await service.rotate(merchantId, webhookId);
    expect(Object.keys(rotated)).toEqual(['secret']);
    expect(rotated.secret).not.toBe(secret);
    const view = await service.reveal(merchantId, webhookId);
    expect(view.secret).toBe(rotated.secret);
    const expires = new Date(view.previousSecretExpiresAt!).getTime();
    expect(expires).toBeGreaterThanOrEqual(before + ROTATION_GRACE_MS - 5_000);
    expect(expires).toBeLessThanOrEqual(Date.now() + ROTATION_GRACE_MS + 5_000);
    expect(announced.filter((id) => id === webhookId)).toHaveLength(1);
  });
});
