import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { createHmac } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { appTestEnv, WebhookBodyChecks } from '#testing';
import type { BrowserContext, Page } from 'playwright-core';
import { openBrowser, type Browser } from './support/browser.js';
import { Webhook } from 'standardwebhooks';
import { loadWebhookDispatcherConfig } from '../../webhook-dispatcher/src/config/webhook-dispatcher.config.js';
import { createWebhookDispatcherApp } from '../../webhook-dispatcher/src/webhook-dispatcher.app.js';
import { createUser, PASSWORD, type RunningApp, seedMerchant, startApp } from './support/harness.js';
import { EVENT_KINDS } from '#domain';

/** The kinds of event as the problems list them. */
const KINDS = EVENT_KINDS.join(', ');

/**
 * The screenshots the README shows. The test writes them there only with UPDATE_SCREENSHOTS=1
 * (`UPDATE_SCREENSHOTS=1 npx nx run webhook-config:test -- ui.e2e`); otherwise into a temporary directory removed
 * after the run, so that a test run leaves the git tree clean. The pages are screenshotted on every run either way.
 */
const DOCS_SCREENSHOTS = fileURLToPath(new URL('../../../docs/screenshots/', import.meta.url));
const UPDATE_SCREENSHOTS = process.env.UPDATE_SCREENSHOTS === '1';
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };

interface Received {
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** The settings the test gives the one webhook it creates (see fillEverySetting). */
const SERVED = { version: '2025-01-15', contentType: 'php-post' };

/**
 * A shop's webhook endpoint on 127.0.0.1: answers 200 to the first request and 500 to every later one, and checks
 * every body against the schema of the webhook it serves.
 */
async function startReceiver(): Promise<{
  server: Server;
  url: string;
  received: Received[];
  bodies: WebhookBodyChecks;
}> {
  const received: Received[] = [];
  const bodies = new WebhookBodyChecks();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks) });
      bodies.check(received[received.length - 1]!, SERVED, request.url ?? '/');
      const ok = received.length === 1;
      response.writeHead(ok ? 200 : 500, { 'content-type': 'text/plain' });
      response.end(ok ? 'thanks' : 'Fatal error: Uncaught PDOException: database is locked');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}/shop/webhooks/payments`, received, bodies };
}

/**
 * The merchant backend in a real browser (Chromium via playwright-core), against two webhook-config
 * processes sharing one database: a strict one (WEBHOOK_ALLOW_PRIVATE_TARGETS=false, as in production) that
 * must refuse a loopback URL, and a permissive one that lets the webhook point at a local receiver. The real
 * dispatcher runs in-process and delivers to that receiver.
 */
describe('merchant backend UI in Chromium (e2e)', () => {
  let strict: RunningApp;
  let permissive: RunningApp;
  let dispatcher: INestApplication | undefined;
  let dispatcherProblem: unknown;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let browser: Browser | undefined;
  let context: BrowserContext;
  let page: Page;
  let email: string;
  const secrets: { created?: string; rotated?: string } = {};
  let webhookPage: string | undefined;
  let screenshots: string | undefined;

  beforeAll(async () => {
    screenshots = UPDATE_SCREENSHOTS ? DOCS_SCREENSHOTS : await mkdtemp(join(tmpdir(), 'webhook-config-screenshots-'));
    await mkdir(screenshots, { recursive: true });
    strict = await startApp({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false' });
    permissive = await startApp({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
    receiver = await startReceiver();
    const { merchantId } = await seedMerchant(strict.db, ['Online shop', 'Shop in Bern']);
    email = await createUser(strict.baseUrl, merchantId, `owner-${merchantId.slice(0, 8)}@boutique.example`);

    try {
      dispatcher = await createWebhookDispatcherApp(
        loadWebhookDispatcherConfig(
          appTestEnv({
            WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
            WEBHOOK_TIMEOUT_MS: '5000',
            WEBHOOK_DISPATCHER_PORT: '0',
          }),
        ),
      );
      await dispatcher.init();
    } catch (error) {
      dispatcherProblem = error; // reported by the delivery test; the rest of the UI is still tested
    }

    browser = await openBrowser('ui', { viewport: DESKTOP });
    ({ context, page } = browser);
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    if (screenshots && !UPDATE_SCREENSHOTS) await rm(screenshots, { recursive: true, force: true });
    await dispatcher?.close();
    await new Promise((resolve) => receiver?.server.close(resolve));
    await permissive?.close();
    await strict?.close();
  }, 30_000);

  /** A full-page screenshot (for docs/screenshots, see DOCS_SCREENSHOTS), without a passing toast covering the page. */
  const shot = async (name: string) => {
    await page.evaluate("document.getElementById('toast')?.setAttribute('hidden', '')");
    await page.screenshot({ path: join(screenshots!, `${name}.png`), fullPage: true });
  };

  /** Fills every setting of the webhook form. */
  async function fillEverySetting(url: string): Promise<void> {
    await page.getByLabel('Name', { exact: true }).fill('Boutique orders');
    await page.getByLabel('URL', { exact: true }).fill(url);
    await page.getByLabel('Link to integration').selectOption({ label: 'Online shop' });
    await page.getByLabel('Transactions').check();
    await page.getByLabel('Subscriptions').check();
    await page.getByLabel('Payouts').uncheck();
    await page.getByLabel('PHP form post').check();
    await page.getByLabel('Version').selectOption(SERVED.version);
    // The hint tells what retrying means with this platform's WEBHOOK_RETRY_DELAYS (the default here).
    await page.getByText('send it again up to 10 more times over about 5 days.').waitFor();
    await page.getByLabel('Retry on error').uncheck();
  }

  it('signs in, shows the empty state, refuses a private URL beside the field, creates a webhook with every setting and rotates its secret', async () => {
    // Sign in on the strict instance.
    await page.goto(`${strict.baseUrl}/`);
    await expect(page.getByRole('heading', { name: 'Sign in' }).isVisible()).resolves.toBe(true);
    await shot('sign-in-desktop');
    await page.getByLabel('E-mail address').fill(email);
    await page.getByLabel('Password').fill('not my password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('The e-mail address or the password is not correct.').waitFor();
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();

    // Empty state.
    await page.getByRole('heading', { name: 'No webhooks yet' }).waitFor();
    await expect(page.locator('#account-email').textContent()).resolves.toBe(email);
    await shot('webhooks-empty-desktop');

    // A loopback URL is refused by a production-like instance, with the message beside the URL field.
    await page.getByRole('link', { name: 'Add your first webhook' }).click();
    await page.getByRole('heading', { name: 'Add a webhook' }).waitFor();
    await fillEverySetting(receiver.url);
    await page.getByRole('button', { name: 'Create webhook' }).click();
    const urlError = page.locator('#wh-url-error');
    await urlError.waitFor();
    await expect(urlError.textContent()).resolves.toMatch(
      /^URL must point to a public internet address; 127\.0\.0\.1 is a private, loopback or link-local address/,
    );
    await expect(page.getByLabel('URL', { exact: true }).getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(page.locator('#wh-url').getAttribute('aria-describedby')).resolves.toContain('wh-url-error');
    await shot('webhook-form-private-url-desktop');
    await page.setViewportSize(PHONE);
    await shot('webhook-form-private-url-phone');
    await page.setViewportSize(DESKTOP);

    // The permissive instance (same database, same session: the cookie is server-side) accepts it.
    await page.goto(`${permissive.baseUrl}/#/new`);
    await page.getByRole('heading', { name: 'Add a webhook' }).waitFor();
    await fillEverySetting(receiver.url);
    await page.getByRole('button', { name: 'Create webhook' }).click();

    // The webhook page: settings as chosen and the new secret, shown once.
    await page.getByRole('heading', { name: 'Boutique orders' }).waitFor();
    await page.getByText('Your webhook is ready.').waitFor();
    webhookPage = page.url();
    const settings = page.locator('section[aria-labelledby="settings-title"] dl.summary');
    await expect(settings.textContent()).resolves.toMatch(
      /EventsTransactions, Subscriptions.*IntegrationOnline shop.*FormatPHP form post.*Version2025-01-15.*Retry on errorNo/,
    );
    const secretValue = page.locator('#secret-value');
    secrets.created = (await secretValue.textContent())!;
    expect(secrets.created).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);

    // Hide, reveal, copy.
    await page.getByRole('button', { name: 'Hide' }).click();
    await expect(secretValue.textContent()).resolves.toMatch(/^whsec_•+$/);
    await page.getByRole('button', { name: 'Reveal' }).click();
    await expect(secretValue.textContent()).resolves.toBe(secrets.created);
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.getByText('Secret copied to the clipboard.').waitFor();
    await expect(page.evaluate('navigator.clipboard.readText()')).resolves.toBe(secrets.created);

    // Rotate: confirm in the dialog; the new secret is shown, the old one keeps signing for 24 hours.
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    const dialog = page.getByRole('dialog', { name: 'Rotate the signing secret?' });
    await dialog.waitFor();
    // It tells the truth about the older header, which has room for one signature only.
    await dialog
      .getByText(/x-webhook-signature header has room for one signature and uses the new secret at once/)
      .waitFor();
    await dialog.getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByText(/The previous secret keeps signing webhook-signature until/).waitFor();
    secrets.rotated = (await secretValue.textContent())!;
    expect(secrets.rotated).toMatch(/^whsec_/);
    expect(secrets.rotated).not.toBe(secrets.created);

    // The log is empty so far, and says how to try it.
    await page.getByText('No deliveries yet.').waitFor();

    // The list shows the webhook.
    await page.getByRole('link', { name: '← All webhooks' }).click();
    await page.getByRole('link', { name: 'Boutique orders', exact: true }).waitFor();
    await shot('webhooks-list-desktop');
    await page.setViewportSize(PHONE);
    await shot('webhooks-list-phone');
    await page.setViewportSize(DESKTOP);
    await page.getByRole('link', { name: 'Boutique orders', exact: true }).click();
    await page.getByRole('heading', { name: 'Boutique orders' }).waitFor();

    // Edit shows every setting as saved.
    await page.getByRole('link', { name: 'Edit' }).click();
    await page.getByRole('heading', { name: 'Edit “Boutique orders”' }).waitFor();
    await expect(page.getByLabel('URL', { exact: true }).inputValue()).resolves.toBe(receiver.url);
    await expect(page.getByLabel('PHP form post').isChecked()).resolves.toBe(true);
    await expect(page.getByLabel('Payouts').isChecked()).resolves.toBe(false);
    await expect(page.getByLabel('Retry on error').isChecked()).resolves.toBe(false);
    await expect(page.getByLabel('Version').inputValue()).resolves.toBe('2025-01-15');
    await page.getByLabel('Transactions').uncheck();
    await page.getByLabel('Subscriptions').uncheck();
    await page.getByRole('button', { name: 'Save changes' }).click();
    // The error appears once the server has answered: wait for it rather than reading the element at once.
    await page
      .locator('#wh-events-error')
      .getByText(`Events must contain at least one of ${KINDS}.`, { exact: true })
      .waitFor();
    await page.getByRole('link', { name: 'Cancel' }).click();
    await page.getByRole('heading', { name: 'Boutique orders' }).waitFor();

    // Health, and disabling: a banner says what it means and what to do; enabling again removes it.
    const health = page.locator('section[aria-labelledby="health-title"]');
    await expect(health.textContent()).resolves.toMatch(/Healthy.*Last deliveredNot yet.*0 attempts, 0 failed/);
    await page.getByRole('button', { name: 'Disable' }).click();
    await page.locator('#health-banner').getByText('Nothing is sent to this webhook').waitFor();
    await expect(health.locator('[data-health]').textContent()).resolves.toBe('Disabled');
    await page.getByRole('link', { name: '← All webhooks' }).click();
    await page.locator('.webhook-item [data-health="disabled"]').waitFor();
    await page.getByRole('link', { name: 'Boutique orders', exact: true }).click();
    await page.getByRole('button', { name: 'Enable' }).click();
    await page.getByText('“Boutique orders” is enabled again.').waitFor();
    await page.locator('#health-banner').waitFor({ state: 'detached' });
    await expect(health.locator('[data-health]').textContent()).resolves.toBe('Healthy');
  }, 60_000);

  it('sends a test to a local receiver, shows its 200, then a resend answered 500 with the explanation', async () => {
    if (dispatcherProblem)
      throw new Error(`the dispatcher did not start: ${(dispatcherProblem as Error).stack ?? dispatcherProblem}`);
    if (!webhookPage) throw new Error('the first test did not create the webhook');
    await page.goto(webhookPage);
    await page.getByRole('heading', { name: 'Boutique orders' }).waitFor();
    // How long the log is kept: WEBHOOK_LOG_RETENTION (30 days by default).
    await expect(page.locator('#log-retention').textContent()).resolves.toBe(
      'Attempts are kept for 30 days; older ones are removed and can no longer be resent.',
    );

    await page.getByRole('button', { name: 'Send test' }).click();
    const delivered = page.locator('table.log tbody tr[data-status="200"]');
    await delivered.first().waitFor({ timeout: 30_000 });
    await expect(delivered.first().textContent()).resolves.toContain('Delivered');

    // What the shop received: a PHP form post of a transaction, signed with the new and (during the
    // rotation) the old secret.
    expect(receiver.received).toHaveLength(1);
    const [first] = receiver.received;
    expect(first.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(first.body.toString('utf8')).toMatch(/^transaction\[uuid\]=/);
    expect(first.body.toString('utf8')).not.toContain('3dsecure');
    const signatures = String(first.headers['webhook-signature']).split(' ');
    expect(signatures).toHaveLength(2);
    const signed = {
      'webhook-id': String(first.headers['webhook-id']),
      'webhook-timestamp': String(first.headers['webhook-timestamp']),
      'webhook-signature': String(first.headers['webhook-signature']),
    };
    for (const secret of [secrets.rotated!, secrets.created!]) {
      expect(() => new Webhook(secret).verify(first.body, signed, { jsonParse: false })).not.toThrow();
    }
    expect(first.headers['x-webhook-signature']).toBe(
      createHmac('sha256', secrets.rotated!).update(first.body).digest('hex'),
    );
    await receiver.bodies.assertValid();

    // Resend that attempt: the receiver now fails with 500, and the log explains it.
    await delivered
      .first()
      .getByRole('button', { name: /^Resend/ })
      .click();
    const failed = page.locator('table.log tbody tr[data-status="500"]');
    await failed.first().waitFor({ timeout: 30_000 });
    const row = await failed.first().textContent();
    expect(row).toContain('Error on your server');
    expect(row).toContain('failed while processing it');
    expect(row).toContain('What to do: Look at your server’s or shop system’s error log');
    expect(row).toContain('No automatic repeat follows this attempt.');
    expect(receiver.received).toHaveLength(2);
    expect(receiver.received[1].headers['webhook-id']).toBe(first.headers['webhook-id']);

    await failed.first().getByText('Technical details').click();
    await page.getByText('database is locked').waitFor();
    await shot('webhook-detail-desktop');
    await page.setViewportSize(PHONE);
    await shot('webhook-detail-phone');
    await page.setViewportSize(DESKTOP);

    // The filters: only failures; then the attempts of one order, found by its reference (test deliveries carry
    // "webhook-test"), and none for another.
    await page.getByLabel('Show').selectOption('failed');
    await page.locator('table.log tbody tr[data-status="200"]').waitFor({ state: 'detached' });
    await page.getByLabel('Show').selectOption('');
    await page.getByLabel('Find').fill('webhook-test');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.locator('table.log tbody tr[data-status="200"]').waitFor();
    await expect(page.locator('table.log tbody tr').first().textContent()).resolves.toContain('Order webhook-test');
    await page.getByLabel('Find').fill('order-that-never-was');
    await page.getByLabel('Find').press('Enter');
    await page.getByText('No entries match these filters.').waitFor();
    await page.getByLabel('Find').fill('');
    await page.getByLabel('Show').selectOption('failed');
    await page.locator('table.log tbody tr[data-status="500"]').first().waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.reload();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  }, 90_000);

  it('shows the result of a test and of a resend even when the log was filtered to hide it', async () => {
    if (dispatcherProblem)
      throw new Error(`the dispatcher did not start: ${(dispatcherProblem as Error).stack ?? dispatcherProblem}`);
    if (!webhookPage) throw new Error('the first test did not create the webhook');
    // Signed out by the previous test: sign in again on the webhook's page.
    await page.goto(webhookPage);
    await page.getByLabel('E-mail address').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Boutique orders' }).waitFor();

    // The receiver now answers 500 to everything; the log holds one 200 and one 500 so far.
    const rows = page.locator('table.log tbody tr');
    const failed = page.locator('table.log tbody tr[data-status="500"]');
    await failed.first().waitFor();
    const outcome = page.getByLabel('Show');

    // "Delivered" hides the 500 the test will get: sending switches the log back to all attempts, visibly.
    await outcome.selectOption('delivered');
    await failed.first().waitFor({ state: 'detached' });
    await expect(rows.count()).resolves.toBe(1);
    await page.getByRole('button', { name: 'Send test' }).click();
    await failed.nth(1).waitFor({ timeout: 30_000 });
    await expect(outcome.inputValue()).resolves.toBe('');
    await expect(rows.first().getAttribute('data-status')).resolves.toBe('500');
    await expect(rows.count()).resolves.toBe(3);
    await page.getByText('Delivery result: 500 — Error on your server.').waitFor();
    expect(receiver.received).toHaveLength(3);

    // The same for a resend from the filtered log.
    await outcome.selectOption('delivered');
    await failed.first().waitFor({ state: 'detached' });
    await rows
      .first()
      .getByRole('button', { name: /^Resend/ })
      .click();
    await page.getByText('Sent again. The log shows all entries again;').waitFor();
    await expect(outcome.inputValue()).resolves.toBe('');
    await failed.nth(2).waitFor({ timeout: 30_000 });
    await expect(rows.first().getAttribute('data-status')).resolves.toBe('500');
    await expect(rows.count()).resolves.toBe(4);
    expect(receiver.received).toHaveLength(4);
    await receiver.bodies.assertValid();
  }, 90_000);
});
