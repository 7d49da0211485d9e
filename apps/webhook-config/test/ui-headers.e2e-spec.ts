import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { appTestEnv, waitFor } from '#testing';
import type { Page } from 'playwright-core';
import { openBrowser, type Browser } from './support/browser.js';
import { loadWebhookDispatcherConfig } from '../../webhook-dispatcher/src/config/webhook-dispatcher.config.js';
import { createWebhookDispatcherApp } from '../../webhook-dispatcher/src/webhook-dispatcher.app.js';
import { createUser, PASSWORD, type RunningApp, seedMerchant, startApp } from './support/harness.js';

/**
 * Custom headers in Chromium (CONTRACT §5–6, issue #34): a merchant adds a header, sees it only masked, sends a test
 * that carries it, replaces its value (the test carries the new one), sees a reserved name refused beside the header,
 * and removes it. The real dispatcher runs in-process.
 */
describe('merchant backend UI: custom headers (Chromium, e2e)', () => {
  let app: RunningApp;
  let dispatcher: INestApplication;
  let shop: Server;
  const received: IncomingHttpHeaders[] = [];
  let page: Page;
  let browser: Browser | undefined;
  let email: string;
  let url: string;
  const first = `key-${randomUUID()}-AB12`;
  const second = `key-${randomUUID()}-CD34`;

  beforeAll(async () => {
    app = await startApp({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
    const { merchantId } = await seedMerchant(app.db);
    email = await createUser(app.baseUrl, merchantId);
    shop = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        received.push(request.headers);
        response.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(shop.address() as AddressInfo).port}/shop/webhook`;
    dispatcher = await createWebhookDispatcherApp(
      loadWebhookDispatcherConfig(appTestEnv({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_DISPATCHER_PORT: '0' })),
    );
    await dispatcher.init();
    browser = await openBrowser('ui-headers', { timeoutMs: 15_000 });
    ({ page } = browser);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await dispatcher?.close();
    await new Promise((resolve) => shop?.close(resolve));
    await app?.close();
  }, 30_000);

  const sendTestCarrying = async (value: string) => {
    const before = received.length;
    await page.getByRole('button', { name: 'Send test' }).click();
    await waitFor(() => received.slice(before).some((headers) => headers['x-api-key'] === value), {
      timeoutMs: 15_000,
      what: 'a test delivery with the header',
    });
  };

  it('adds a header, shows it masked, replaces its value, refuses a reserved name and removes it', async () => {
    await page.goto(app.baseUrl);
    await page.getByLabel('E-mail address').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'Add your first webhook' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Shop with a key');
    await page.getByLabel('URL', { exact: true }).fill(url);

    // Add a header and save: the page shows only the value's last four characters.
    await page.getByRole('button', { name: 'Add header' }).click();
    await page.getByLabel('Header name').fill('X-Api-Key');
    await page.getByLabel('Header value').fill(first);
    await page.getByRole('button', { name: 'Create webhook' }).click();
    await page.getByRole('heading', { name: 'Shop with a key' }).waitFor();
    const summary = page.locator('#wh-headers-summary');
    await expect(summary.textContent()).resolves.toBe('X-Api-Key: ••••AB12');
    expect(await page.content()).not.toContain(first.slice(0, -4));
    await sendTestCarrying(first);

    // Edit: the value field is empty (never the value), hinting at its end; saving untouched keeps it.
    await page.getByRole('link', { name: 'Edit' }).click();
    const value = page.getByLabel('Value of X-Api-Key (empty: unchanged)');
    await expect(value.inputValue()).resolves.toBe('');
    await expect(value.getAttribute('placeholder')).resolves.toBe('Unchanged (ends in AB12)');
    expect(await page.content()).not.toContain(first.slice(0, -4));
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('heading', { name: 'Shop with a key' }).waitFor();
    await expect(summary.textContent()).resolves.toBe('X-Api-Key: ••••AB12');

    // Replace the value.
    await page.getByRole('link', { name: 'Edit' }).click();
    await page.getByLabel('Value of X-Api-Key (empty: unchanged)').fill(second);
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('heading', { name: 'Shop with a key' }).waitFor();
    await expect(summary.textContent()).resolves.toBe('X-Api-Key: ••••CD34');
    await sendTestCarrying(second);

    // A reserved name is refused beside the header, naming it; nothing is saved.
    await page.getByRole('link', { name: 'Edit' }).click();
    await page.getByRole('button', { name: 'Add header' }).click();
    await page.getByLabel('Header name').last().fill('User-Agent');
    await page.getByLabel('Header value').fill('mine');
    await page.getByRole('button', { name: 'Save changes' }).click();
    const problem = page.locator('.header-row .field-error').filter({ hasText: '"User-Agent" is reserved' });
    await problem.waitFor();

    // Remove both (the new row and the stored one) and save.
    await page.getByRole('button', { name: 'Remove header', exact: true }).click();
    await page.getByRole('button', { name: 'Remove header X-Api-Key' }).click();
    await expect(page.locator('.header-row').count()).resolves.toBe(0);
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('heading', { name: 'Shop with a key' }).waitFor();
    await expect(summary.textContent()).resolves.toBe('None');
    const before = received.length;
    await page.getByRole('button', { name: 'Send test' }).click();
    await waitFor(() => received.length > before, { timeoutMs: 15_000, what: 'a test delivery' });
    expect(received.at(-1)!['x-api-key']).toBeUndefined();
  }, 90_000);
});
