import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes, randomUUID } from 'node:crypto';
import { dataSourceOptions, WEBHOOK_CONFIG_DATABASE } from '#persistence';
import { SecretCipher } from '#platform';
import { appTestEnv, insertMerchant, insertWebhook, testEnv } from '#testing';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { loadWebhookConfigConfig } from '../config/webhook-config.config.js';
import { IntegrationRef } from '../integration/integration-ref.entity.js';
import { IntegrationRepository } from '../integration/integration.repository.js';
import type { CreateWebhookDto } from './dtos/create-webhook.dto.js';
import type { WebhookChangePublisher } from './webhook-change.publisher.js';
import { WebhookEntity } from './webhook.entity.js';
import { WebhookExceptionCode } from './webhook.exception.js';
import { WebhookHeaderEntity } from './webhook-header.entity.js';
import { WebhookHeaderService } from './webhook-header.service.js';
import { WebhookHealthEntity } from './webhook-health.entity.js';
import { WebhookHealthRepository } from './webhook-health.repository.js';
import { WebhookLookup } from './webhook.lookup.js';
import { WebhookRepository } from './webhook.repository.js';
import { WebhookSecretEntity } from './webhook-secret.entity.js';
import { WebhookSecretRepository } from './webhook-secret.repository.js';
import { WebhookSecretService } from './webhook-secret.service.js';
import { MAX_WEBHOOKS_PER_MERCHANT, WebhookService } from './webhook.service.js';
import { WebhookSettingsValidator } from './webhook-settings.validator.js';
import { WebhookUrlPolicy } from './webhook-url.policy.js';
import { OperationalEventOutbox } from '../operational-event/operational-event.outbox.js';
import { OperationalEventRelay } from '../operational-event/operational-event.relay.js';

/**
 * A merchant's webhook settings on a real database as webhook-config's role: created with defaults, events in the
 * contract's order and a secret, at most MAX_WEBHOOKS_PER_MERCHANT, changed and deleted by their merchant only, the
 * enabling that starts a new failure episode, and each change announced (our own publisher, recorded here). URLs are
 * public IP literals: the name lookup of the URL policy has its own spec.
 */
describe('WebhookService (real PostgreSQL)', () => {
  const admin = new pg.Pool({ connectionString: testEnv().databaseUrl, max: 2 });
  const announced: string[] = [];
  const url = 'https://93.184.215.14/hooks';
  let db: DataSource;
  let webhooks: WebhookService;

  beforeAll(async () => {
    db = await new DataSource(
      dataSourceOptions({
        url: testEnv().databaseUrl,
        entities: [WebhookEntity, WebhookSecretEntity, WebhookHeaderEntity, WebhookHealthEntity, IntegrationRef],
        poolSize: 2,
        ...WEBHOOK_CONFIG_DATABASE,
      }),
    ).initialize();
    const config = loadWebhookConfigConfig(appTestEnv());
    const repository = new WebhookRepository(db, db.getRepository(WebhookEntity));
    const lookup = new WebhookLookup(repository);
    const changes = {
      changed: async (_merchantId: string, webhookId: string) => void announced.push(webhookId),
    } as unknown as WebhookChangePublisher;
    const noLookups = async (hostname: string) => {
      throw new Error(`no name lookup expected (${hostname})`);
    };
    const cipher = new SecretCipher(randomBytes(32));
    webhooks = new WebhookService(
      repository,
      lookup,
      new WebhookSettingsValidator(
        new WebhookUrlPolicy(config, noLookups),
        new IntegrationRepository(db.getRepository(IntegrationRef)),
      ),
      new WebhookSecretService(
        cipher,
        new WebhookSecretRepository(db, db.getRepository(WebhookSecretEntity)),
        lookup,
        changes,
      ),
      changes,
      new WebhookHealthRepository(db.getRepository(WebhookHealthEntity)),
      new WebhookHeaderService(cipher, db.getRepository(WebhookHeaderEntity)),
      new OperationalEventOutbox(db),
      { nudge: () => undefined } as unknown as OperationalEventRelay,
    );
  });
  afterAll(async () => {
    await db.destroy();
    await admin.end();
  });

  const input = (extra: Partial<CreateWebhookDto> = {}) =>
    ({ name: 'Orders', url, events: ['payout', 'transaction'], ...extra }) as CreateWebhookDto;
  const codeOf = (work: Promise<unknown>) =>
    work.then(
      () => 'ok',
      (error: { code?: string }) => error.code,
    );

  it('creates a webhook with its defaults, its events in the contract order, a secret stored encrypted, and announces it', async () => {
    const merchantId = await insertMerchant(admin);
    const created = await webhooks.create(merchantId, input());
    expect(created).toMatchObject({
      name: 'Orders',
      url,
      contentType: 'json',
      retryOnError: true,
      events: ['transaction', 'payout'],
      integrationId: null,
      enabled: true,
      maxPerSecond: null,
      skipSupersededRepeats: true,
    });
    expect(created.secret.length).toBeGreaterThan(20);
    const secrets = await admin.query(`SELECT ciphertext FROM webhook_secret WHERE webhook_id = $1`, [created.id]);
    expect(secrets.rowCount).toBe(1);
    expect((secrets.rows[0].ciphertext as Buffer).toString('latin1')).not.toContain(created.secret);
    expect(announced).toContain(created.id);
    expect((await webhooks.list(merchantId)).map((webhook) => webhook.id)).toEqual([created.id]);
  });

  it(`refuses the ${MAX_WEBHOOKS_PER_MERCHANT + 1}th webhook of a merchant`, async () => {
    const merchantId = await insertMerchant(admin);
    for (let i = 0; i < MAX_WEBHOOKS_PER_MERCHANT; i += 1) await insertWebhook(admin, { merchantId });
    expect(await codeOf(webhooks.create(merchantId, input()))).toBe(WebhookExceptionCode.LIMIT_REACHED);
  });

  it('refuses a loopback URL and an integration of another merchant, naming the fields', async () => {
    const merchantId = await insertMerchant(admin);
    const loopback = await webhooks.create(merchantId, input({ url: 'https://127.0.0.1/h' })).catch((error) => error);
    expect(loopback.code).toBe(WebhookExceptionCode.INVALID_SETTINGS);
    expect(loopback.errors.map((e: { field: string }) => e.field)).toContain('url');
    const foreign = await webhooks.create(merchantId, input({ integrationId: randomUUID() })).catch((error) => error);
    expect(foreign.code).toBe(WebhookExceptionCode.INVALID_SETTINGS);
    expect(foreign.errors.map((e: { field: string }) => e.field)).toContain('integrationId');
  });

  it("changes, disables and enables a merchant's own webhook; enabling starts a new episode; another merchant gets 404", async () => {
    const merchantId = await insertMerchant(admin);
    const { id } = await webhooks.create(merchantId, input());
    const stranger = await insertMerchant(admin);
    expect(await codeOf(webhooks.get(stranger, id))).toBe(WebhookExceptionCode.NOT_FOUND);
    expect(await codeOf(webhooks.update(stranger, id, { name: 'Mine' }))).toBe(WebhookExceptionCode.NOT_FOUND);
    expect(await codeOf(webhooks.remove(stranger, id))).toBe(WebhookExceptionCode.NOT_FOUND);

    expect(await webhooks.update(merchantId, id, { name: 'Renamed', enabled: false })).toMatchObject({
      name: 'Renamed',
      enabled: false,
    });
    const disabled = (await admin.query(`SELECT disabled_reason, enabled_at FROM webhook WHERE id = $1`, [id])).rows[0];
    expect(disabled).toEqual({ disabled_reason: 'manual', enabled_at: null });
    const before = Date.now();
    await webhooks.update(merchantId, id, { enabled: true });
    const enabled = (await admin.query(`SELECT disabled_reason, enabled_at FROM webhook WHERE id = $1`, [id])).rows[0];
    expect(enabled.disabled_reason).toBeNull();
    expect(enabled.enabled_at.getTime()).toBeGreaterThanOrEqual(before - 1_000);
    // Each change of enabled is an operational event, written with it; a PATCH that changes nothing is none.
    await webhooks.update(merchantId, id, { enabled: true });
    const events = (
      await admin.query(
        `SELECT type, payload FROM operational_event WHERE webhook_id = $1 AND published_at IS NULL ORDER BY id`,
        [id],
      )
    ).rows;
    expect(events.map((event: { type: string }) => event.type)).toEqual(['webhook.disabled', 'webhook.enabled']);
    expect(events[0].payload).toMatchObject({
      type: 'webhook.disabled',
      category: 'webhook',
      merchantId,
      integrationId: null,
      subjectId: id,
      data: { id, name: 'Renamed', state: 'disabled', disabledReason: 'manual', count: null },
    });
    expect(events[1].payload.data).toMatchObject({ state: 'healthy', disabledReason: null });

    await webhooks.remove(merchantId, id);
    expect(await codeOf(webhooks.get(merchantId, id))).toBe(WebhookExceptionCode.NOT_FOUND);
    expect(announced.filter((webhookId) => webhookId === id).length).toBe(5); // created, changed 3 times, deleted
  });
  describe('custom headers', () => {
    const token = 'Bearer shop-token-SECRETVALUE-9876';
    const storedText = async (webhookId: string) =>
      (
        await admin.query<{ text: string }>(
          `SELECT name || encode(ciphertext, 'escape') AS text FROM webhook_header WHERE webhook_id = $1`,
          [webhookId],
        )
      ).rows.map((row) => row.text);

    it('stores values encrypted and shows each only as its last four characters, in order', async () => {
      const merchantId = await insertMerchant(admin);
      const created = await webhooks.create(
        merchantId,
        input({
          headers: [
            { name: 'Authorization', value: token },
            { name: 'X-Shop', value: 'abc' },
          ],
        }),
      );
      const expected = [
        { name: 'Authorization', valueLast4: '9876' },
        { name: 'X-Shop', valueLast4: '' },
      ];
      expect(created.headers).toEqual(expected);
      expect((await webhooks.get(merchantId, created.id)).headers).toEqual(expected);
      expect((await webhooks.list(merchantId))[0].headers).toEqual(expected);
      const text = await storedText(created.id);
      expect(text).toHaveLength(2);
      for (const row of text) expect(row).not.toContain('SECRETVALUE');
    });

    it('a PATCH replaces the list; an entry without value keeps the stored value of its name in any letter case', async () => {
      const merchantId = await insertMerchant(admin);
      const { id } = await webhooks.create(
        merchantId,
        input({
          headers: [
            { name: 'Authorization', value: token },
            { name: 'X-Old', value: 'gone-1111' },
          ],
        }),
      );
      const kept = await webhooks.update(merchantId, id, {
        headers: [{ name: 'X-New', value: 'fresh-2222' }, { name: 'authorization' }],
      });
      expect(kept.headers).toEqual([
        { name: 'X-New', valueLast4: '2222' },
        { name: 'authorization', valueLast4: '9876' },
      ]);
      // Untouched when absent; [] removes all.
      expect((await webhooks.update(merchantId, id, { name: 'Renamed' })).headers).toHaveLength(2);
      expect((await webhooks.update(merchantId, id, { headers: [] })).headers).toEqual([]);
      expect(await storedText(id)).toEqual([]);
    });

    it('refuses to keep a value that is not stored, naming the entry, and changes nothing', async () => {
      const merchantId = await insertMerchant(admin);
      const { id } = await webhooks.create(merchantId, input({ headers: [{ name: 'X-A', value: 'value-aaaa' }] }));
      const error = await webhooks
        .update(merchantId, id, { name: 'Other', headers: [{ name: 'X-Unknown' }] })
        .catch((e: unknown) => e as { code: string; errors: Array<{ field: string; message: string }> });
      expect(error).toMatchObject({ code: WebhookExceptionCode.INVALID_SETTINGS });
      expect((error as { errors: Array<{ field: string; message: string }> }).errors).toEqual([
        { field: 'headers.0.value', message: 'is required: "X-Unknown" has no stored value to keep' },
      ]);
      const after = await webhooks.get(merchantId, id);
      expect(after.name).toBe('Orders');
      expect(after.headers).toEqual([{ name: 'X-A', valueLast4: 'aaaa' }]);
    });
  });
});
