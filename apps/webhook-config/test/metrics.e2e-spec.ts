import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { AmqpClient, publishWebhookHealthReport } from '#messaging';
import { dataSourceOptions } from '#persistence';
import { appTestEnv, metricsSuite, testEnv, waitFor } from '#testing';
import { DataSource } from 'typeorm';
import { loadWebhookConfigConfig } from '../src/config/webhook-config.config.js';
import { createWebhookConfigApp } from '../src/webhook-config.app.js';
import { createUser, PUBLIC_URL, seedMerchant, signIn, type Client } from './support/harness.js';
import { WEBHOOK_DISABLED_REASONS } from '../src/webhook/webhook.entity.js';

metricsSuite('webhook-config', () => createWebhookConfigApp(loadWebhookConfigConfig(appTestEnv())), {
  traffic: async (baseUrl) => {
    await fetch(`${baseUrl}/api/webhooks`); // no session: 401
    await fetch(`${baseUrl}/`); // the backend UI
  },
  more: (context) => {
    const { scrape } = context;
    let db: DataSource;
    let amqp: AmqpClient;
    beforeAll(async () => {
      db = await new DataSource(dataSourceOptions({ url: testEnv().databaseUrl, poolSize: 2 })).initialize();
      amqp = new AmqpClient({
        url: testEnv().amqpUrl,
        name: 'test-dispatcher-reports',
        topology: { retryDelaysMs: [] },
      });
      await amqp.waitForConnect();
    });
    afterAll(async () => {
      await amqp.close();
      await db.destroy();
    });

    /** webhooks_disabled by reason, as scraped. */
    const disabled = async () => {
      const text = await scrape();
      const value = (reason: string) =>
        Number(new RegExp(`^webhooks_disabled\\{reason="${reason}"\\} (\\S+)$`, 'm').exec(text)?.[1]);
      return { manual: value('manual'), failing: value('failing') };
    };

    it('counts the disabled webhooks of every merchant by reason, every reason at each scrape', async () => {
      const text = await scrape();
      for (const reason of WEBHOOK_DISABLED_REASONS) {
        expect(text).toMatch(new RegExp(`^webhooks_disabled\\{reason="${reason}"\\} \\d+$`, 'm'));
      }
      expect(text).toMatch(/^# HELP webhooks_disabled .*aggregate with max\(\)$/m);

      const before = await disabled();
      const { merchantId } = await seedMerchant(db);
      const { baseUrl } = context; // known once the app is started
      const client: Client = await signIn(baseUrl, await createUser(baseUrl, merchantId), merchantId);
      const create = async (body: Record<string, unknown> = {}) =>
        (await client.post('/api/webhooks', { name: 'Shop', url: PUBLIC_URL, events: ['transaction'], ...body })).body
          .id as string;
      // Created disabled, and disabled later by the merchant; disabled by the platform after the dispatcher's report.
      await create({ enabled: false });
      const later = await create();
      expect((await client.patch(`/api/webhooks/${later}`, { enabled: false })).status).toBe(200);
      const failing = await create();
      await publishWebhookHealthReport(amqp, {
        type: 'webhook.failing-too-long',
        webhookId: failing,
        merchantId,
        failingSince: new Date(Date.now() - 6 * 86_400_000).toISOString(),
        failures: 12,
      });
      // Handled once the merchant's notice is recorded (after the webhook is disabled).
      const notices = async () => (await client.get('/api/notices')).body.data as Array<{ webhookId: string }>;
      await waitFor(async () => (await notices()).some((notice) => notice.webhookId === failing), {
        what: 'disabled for failing',
      });
      expect(await disabled()).toEqual({ manual: before.manual + 2, failing: before.failing + 1 });

      // Enabled again by its merchant: no longer counted.
      expect((await client.patch(`/api/webhooks/${later}`, { enabled: true })).status).toBe(200);
      expect(await disabled()).toEqual({ manual: before.manual + 1, failing: before.failing + 1 });
    });
  },
});
