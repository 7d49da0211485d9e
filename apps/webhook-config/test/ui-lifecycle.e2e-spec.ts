import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AmqpClient, EXCHANGES, type PlatformEvent } from '#messaging';
import { appTestEnv, testEnv, transactionEvent, waitFor } from '#testing';
import type { Page } from 'playwright-core';
import { openBrowser, type Browser } from './support/browser.js';
import { loadWebhookDispatcherConfig } from '../../webhook-dispatcher/src/config/webhook-dispatcher.config.js';
import { createWebhookDispatcherApp } from '../../webhook-dispatcher/src/webhook-dispatcher.app.js';
import { createUser, PASSWORD, type RunningApp, seedMerchant, startApp } from './support/harness.js';

/** A payment recorded by the platform, as the outbox publishes it: order `referenceId`. */
const paymentEvent = (merchantId: string, integrationId: string, referenceId: string): PlatformEvent =>
  transactionEvent(merchantId, integrationId, { referenceId, amount: 4900, threeDSecure: null });

/**
 * A merchant's webhook through its lifecycle in Chromium, with the real dispatcher in-process (WEBHOOK_DISABLE_AFTER
 * 1 s): its shop fails every webhook, so it is disabled and the merchant told; later events are not sent; the shop is
 * fixed, the merchant enables the webhook and recovers what it missed, and finds an order's attempts by its reference.
 */
describe('merchant backend UI: failing → disabled → enabled → recovered (Chromium, e2e)', () => {
  let app: RunningApp;
  let dispatcher: INestApplication;
  let amqp: AmqpClient;
  let shop: Server;
  let shopFails = true;
  const received: string[] = [];
  /** The path of each request the shop received. */
  const paths: string[] = [];
  let page: Page;
  let browser: Browser | undefined;
  let merchantId: string;
  let integrationId: string;
  let email: string;
  let url: string;

  beforeAll(async () => {
    app = await startApp({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
    ({
      merchantId,
      integrationIds: [integrationId],
    } = await seedMerchant(app.db));
    email = await createUser(app.baseUrl, merchantId);
    shop = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        received.push(Buffer.concat(chunks).toString());
        paths.push(request.url ?? '');
        response.writeHead(shopFails ? 500 : 200).end(shopFails ? 'Fatal error: database is locked' : 'ok');
      });
    });
    await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(shop.address() as AddressInfo).port}/shop/webhook`;
    dispatcher = await createWebhookDispatcherApp(
      loadWebhookDispatcherConfig(
        appTestEnv({
          WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
          WEBHOOK_DISABLE_AFTER: '1s',
          WEBHOOK_DISPATCHER_PORT: '0',
        }),
      ),
    );
    await dispatcher.init();
    amqp = new AmqpClient({ url: testEnv().amqpUrl, name: 'test-platform-events', topology: { retryDelaysMs: [] } });
    await amqp.waitForConnect();
    browser = await openBrowser('ui-lifecycle', { timeoutMs: 15_000 });
    ({ page } = browser);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await amqp?.close();
    await dispatcher?.close();
    await new Promise((resolve) => shop?.close(resolve));
    await app?.close();
  }, 30_000);

  const publish = (referenceId: string) =>
    amqp.publish(
      EXCHANGES.events,
      'transaction.created',
      Buffer.from(JSON.stringify(paymentEvent(merchantId, integrationId, referenceId))),
    );

  it('walks a merchant through it', async () => {
    // Sign in and add the webhook.
    await page.goto(app.baseUrl);
    await page.getByLabel('E-mail address').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'Add your first webhook' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Shop orders');
    await page.getByLabel('URL', { exact: true }).fill(url);
    await page.getByLabel('Retry on error').uncheck();
    await page.getByRole('button', { name: 'Create webhook' }).click();
    await page.getByRole('heading', { name: 'Shop orders' }).waitFor();
    const webhookPage = page.url();

    // The shop fails every webhook: 12 orders over about 2 s, longer than WEBHOOK_DISABLE_AFTER here. Once 10 have
    // failed for more than 1 s the webhook is disabled, so the last orders may no longer be sent.
    for (let order = 7001; order <= 7012; order += 1) {
      await publish(String(order));
      await new Promise((resolve) => setTimeout(resolve, 170));
    }
    await waitFor(() => received.length >= 10, { timeoutMs: 15_000, what: '10 failed attempts' });

    // Disabled, and the merchant is told: on the list, and on the webhook's page.
    await page.goto(app.baseUrl);
    const notice = page.getByRole('status').filter({ hasText: 'was disabled' });
    await waitFor(
      async () => {
        await page.reload();
        await page.getByRole('heading', { name: 'Webhooks' }).waitFor();
        return (await notice.count()) === 1;
      },
      { timeoutMs: 15_000, intervalMs: 500, what: 'the notice on the list' },
    );
    await page.locator('.webhook-item [data-health="disabled"]').waitFor();
    await notice.getByRole('link', { name: 'Shop orders' }).click();
    await page.locator('#health-banner').getByText('Disabled because it kept failing.').waitFor();

    // Orders while it is disabled are not sent: logged as not sent. 14 orders in all, each failed or not sent.
    await publish('7013');
    await publish('7014');
    await page.goto(webhookPage);
    const notDelivered = 'table.log tbody tr[data-outcome="skipped"], table.log tbody tr[data-outcome="failed"]';
    await waitFor(
      async () => {
        await page.reload();
        await page.getByRole('heading', { name: 'Shop orders' }).waitFor();
        return (await page.locator(notDelivered).count()) === 14;
      },
      { intervalMs: 500, what: '14 orders failed or not sent' },
    );
    const sent = received.length;
    expect(sent).toBeGreaterThanOrEqual(10);
    expect(await page.locator('table.log tbody tr[data-outcome="skipped"]').count()).toBe(14 - sent);

    // The shop is fixed; the merchant enables the webhook and recovers since it started failing.
    shopFails = false;
    await page.getByRole('button', { name: 'Enable' }).click();
    await page.getByText('“Shop orders” is enabled again.').waitFor();
    await page.getByRole('button', { name: 'Send again' }).click();
    await page.getByText('14 events are being sent again; the log shows them as they go.').waitFor();
    await waitFor(() => received.length === sent + 14, { timeoutMs: 20_000, what: '14 sent again' });
    // Its progress ends with the final count.
    await page.locator('#recover-status[data-state="finished"]').waitFor({ timeout: 20_000 });
    await expect(page.locator('#recover-status').textContent()).resolves.toContain('14 of 14 events sent again');
    await waitFor(
      async () => {
        await page.reload();
        await page.getByRole('heading', { name: 'Shop orders' }).waitFor();
        return (await page.locator('table.log tbody tr[data-outcome="delivered"]').count()) >= 14;
      },
      { intervalMs: 500, what: '14 delivered in the log' },
    );

    // "Why did order 7005 not update?" — its entries, found by its reference: failed, then delivered.
    await page.getByLabel('Find').fill('7005');
    await page.getByRole('button', { name: 'Search' }).click();
    await waitFor(async () => (await page.locator('table.log tbody tr').count()) === 2, { what: 'two entries' });
    const rows = page.locator('table.log tbody tr');
    await expect(rows.nth(0).getAttribute('data-outcome')).resolves.toBe('delivered');
    await expect(rows.nth(1).getAttribute('data-outcome')).resolves.toBe('failed');
    await expect(rows.nth(0).textContent()).resolves.toContain('Order 7005');
  }, 120_000);

  it('shows a long recover’s progress, and Cancel stops it: nothing more of it is sent', async () => {
    // A second webhook at 2 requests a second, disabled while 40 orders happen: each is logged as not sent.
    await page.goto(app.baseUrl);
    await page.getByRole('link', { name: 'Add webhook' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Slow shop');
    await page.getByLabel('URL', { exact: true }).fill(url.replace('/shop/webhook', '/slow-shop'));
    await page.getByLabel('Retry on error').uncheck();
    await page.getByLabel('Rate limit (requests per second)').fill('2');
    await page.getByRole('button', { name: 'Create webhook' }).click();
    await page.getByRole('heading', { name: 'Slow shop' }).waitFor();
    await page.getByRole('button', { name: 'Disable' }).click();
    await page.getByText('“Slow shop” is disabled.').waitFor();
    const slowShop = () => paths.filter((path) => path === '/slow-shop').length;
    for (let order = 8001; order <= 8040; order += 1) await publish(String(order));
    await waitFor(
      async () => {
        await page.reload();
        await page.getByRole('heading', { name: 'Slow shop' }).waitFor();
        return (await page.locator('table.log tbody tr[data-outcome="skipped"]').count()) >= 20;
      },
      { intervalMs: 500, what: 'orders logged as not sent' },
    );
    await page.getByRole('button', { name: 'Enable' }).click();
    await page.getByText('“Slow shop” is enabled again.').waitFor();
    await page.getByRole('button', { name: 'Send again' }).click();
    await page.getByText('40 events are being sent again; the log shows them as they go.').waitFor();
    // Running: the bar and its count move, at about 2 a second.
    await page.locator('#recover-status[data-state="running"]').waitFor();
    await waitFor(async () => /[1-9]\d* of 40 sent/.test((await page.locator('#recover-status').textContent()) ?? ''), {
      timeoutMs: 15_000,
      what: 'some sent again',
    });
    await expect(page.locator('#recover-bar').getAttribute('max')).resolves.toBe('40');

    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.locator('#recover-status[data-state="cancelled"]').waitFor();
    await page.getByText('The recover was cancelled: nothing more of it is sent.').waitFor();
    const atCancel = slowShop();
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    // At most the one request already on its way when Cancel was pressed.
    expect(slowShop() - atCancel).toBeLessThanOrEqual(1);
    expect(slowShop()).toBeLessThan(40);
  }, 120_000);
});
