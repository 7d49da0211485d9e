import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { existsSync } from 'node:fs';
import { appTestEnv } from '#testing';
import { ConfigError } from '#platform';
import { chromium, type Browser, type Page } from 'playwright-core';
import { loadWebhookConfigConfig } from '../src/config/webhook-config.config.js';
import {
  call,
  createUser,
  PASSWORD,
  PUBLIC_URL,
  type RunningApp,
  seedMerchant,
  signIn,
  startApp,
} from './support/harness.js';
import { seedDelivery } from './support/log-seed.js';

/**
 * GET /webhook-sender-addresses and where the backend shows it: under a 403 in the delivery log. Two processes on
 * one database: one publishes addresses (WEBHOOK_SENDER_ADDRESSES), the other none.
 */
const CHROMIUM = '/usr/bin/chromium';

describe('sender addresses (e2e)', () => {
  let published: RunningApp;
  let unpublished: RunningApp;

  beforeAll(async () => {
    published = await startApp({ WEBHOOK_SENDER_ADDRESSES: ' 203.0.113.10, 2001:DB8:10:0::/48,198.51.100.0/28' });
    unpublished = await startApp();
  });
  afterAll(async () => {
    await published?.close();
    await unpublished?.close();
  });

  describe('GET /webhook-sender-addresses', () => {
    it('lists the configured addresses in canonical form, without authentication, cacheable, as JSON', async () => {
      const answer = await call(published.baseUrl, 'GET', '/webhook-sender-addresses');
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
      expect(answer.headers.get('cache-control')).toBe('public, max-age=3600');
      expect(answer.headers.get('set-cookie')).toBeNull();
      expect(answer.body).toEqual({ addresses: ['203.0.113.10', '2001:db8:10::/48', '198.51.100.0/28'] });
    });

    it('answers an empty list when none are configured', async () => {
      const answer = await call(unpublished.baseUrl, 'GET', '/webhook-sender-addresses');
      expect(answer.status).toBe(200);
      expect(answer.headers.get('cache-control')).toBe('public, max-age=3600');
      expect(answer.body).toEqual({ addresses: [] });
    });

    it('is described in the OpenAPI document: no security, the list and the cache header', () => {
      const document = SwaggerModule.createDocument(published.app, new DocumentBuilder().build());
      const operation = document.paths['/webhook-sender-addresses']?.get;
      expect(operation?.security).toEqual([]);
      expect(operation?.responses['200']).toMatchObject({
        headers: { 'Cache-Control': { description: 'public, max-age=3600' } },
        content: { 'application/json': { schema: { $ref: '#/components/schemas/SenderAddressesView' } } },
      });
      expect(document.components?.schemas?.SenderAddressesView).toMatchObject({
        required: ['addresses'],
        properties: { addresses: { type: 'array', items: { type: 'string' } } },
      });
    });

    it('an invalid entry stops the app at start, naming the variable', () => {
      for (const value of ['203.0.113.10,egress.example', '203.0.113.10/24']) {
        expect(() => loadWebhookConfigConfig(appTestEnv({ WEBHOOK_SENDER_ADDRESSES: value }))).toThrow(ConfigError);
        expect(() => loadWebhookConfigConfig(appTestEnv({ WEBHOOK_SENDER_ADDRESSES: value }))).toThrow(
          /WEBHOOK_SENDER_ADDRESSES must be a comma-separated list of IP addresses and CIDR ranges/,
        );
      }
    });
  });

  describe('the 403 explanation in the backend UI (Chromium)', () => {
    let browser: Browser;
    let page: Page;
    let email: string;
    let webhookPath: string;

    beforeAll(async () => {
      if (!existsSync(CHROMIUM)) {
        throw new Error(
          `Chromium is missing at ${CHROMIUM}. Install it with: apt-get update && apt-get install -y chromium (never download a browser).`,
        );
      }
      const { merchantId } = await seedMerchant(published.db);
      email = await createUser(published.baseUrl, merchantId);
      const client = await signIn(published.baseUrl, email, merchantId);
      const created = await client.post('/api/webhooks', {
        name: 'Firewalled shop',
        url: PUBLIC_URL,
        events: ['transaction'],
      });
      webhookPath = `/#/webhooks/${created.body.id}`;
      await seedDelivery(published.db, { id: created.body.id, merchantId: client.merchantId, url: PUBLIC_URL }, [
        { status: 403, createdAt: new Date(), responseExcerpt: 'Access denied by the web application firewall' },
      ]);
      browser = await chromium.launch({
        executablePath: CHROMIUM,
        headless: true,
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
      });
      page = await browser.newPage({ locale: 'en-GB', timezoneId: 'Europe/Zurich' });
      page.setDefaultTimeout(10_000);
    }, 60_000);
    afterAll(async () => {
      await browser?.close();
    });

    /** Signs in on `running` (the session lives in the shared database) and returns the 403 row's text. */
    async function forbiddenRow(running: RunningApp): Promise<string> {
      await page.goto(`${running.baseUrl}${webhookPath}`);
      const emailField = page.getByLabel('E-mail address');
      const row = page.locator('table.log tbody tr[data-status="403"]');
      await Promise.race([emailField.waitFor(), row.waitFor()]);
      if (await emailField.isVisible()) {
        await emailField.fill(email);
        await page.getByLabel('Password').fill(PASSWORD);
        await page.getByRole('button', { name: 'Sign in' }).click();
      }
      await row.waitFor();
      return (await row.textContent()) ?? '';
    }

    it('lists the published addresses to allow-list, read from GET /webhook-sender-addresses', async () => {
      const text = await forbiddenRow(published);
      expect(text).toContain('Forbidden');
      expect(text).toContain('allow-list these addresses — every webhook is sent from one of them:');
      const listed = await page.locator('tr[data-status="403"] .sender-addresses li').allTextContents();
      expect(listed).toEqual(['203.0.113.10', '2001:db8:10::/48', '198.51.100.0/28']);
    }, 30_000);

    it('without published addresses, says where webhooks come from and what to do instead', async () => {
      const text = await forbiddenRow(unpublished);
      expect(text).toContain('sent from the platform’s servers, whose addresses are not published here');
      expect(text).toContain('ask our support for the current addresses');
      expect(text).toContain('accept only those whose signature checks out with your secret');
      expect(text).not.toContain('203.0.113.10');
      await expect(page.locator('tr[data-status="403"] .sender-addresses li').count()).resolves.toBe(0);
    }, 30_000);
  });
});
