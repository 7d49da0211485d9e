import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { EVENT_KINDS, WEBHOOK_VERSIONS } from '#domain';
import { EXCHANGES } from '#messaging';
import { waitFor } from '#testing';
import type { Page } from 'playwright-core';
import { openBrowser, type Browser } from './support/browser.js';
import { AmqpTap } from './support/amqp-tap.js';
import {
  createUser,
  type Client,
  type Json,
  PASSWORD,
  type RunningApp,
  seedMerchant,
  signIn,
  startApp,
} from './support/harness.js';

/** A local port the settings accept and nothing listens on: a dispatcher (another file's) fails such attempts at once. */
const CLOSED_PORT_URL = 'http://127.0.0.1:1024/webhook';

/**
 * The "Events" page (the event catalog, issue #34) in a real browser (Chromium via playwright-core): every kind, its
 * event types, each payload version's example as JSON and as PHP form lines, its schema — all as `GET /api/event-types`
 * gives them — and "Send this example" to a webhook of the merchant, which asks the dispatcher for a test delivery of
 * that kind (the command on webhooks.commands, as webhook-deliveries.e2e-spec.ts checks the "Send test" one).
 */
describe('the Events page in Chromium (e2e)', () => {
  let running: RunningApp;
  let client: Client;
  let email: string;
  let commands: AmqpTap;
  let browser: Browser | undefined;
  let page: Page;
  const webhooks: Record<string, string> = {};

  beforeAll(async () => {
    running = await startApp({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
    const { merchantId } = await seedMerchant(running.db);
    email = await createUser(running.baseUrl, merchantId);
    client = await signIn(running.baseUrl, email, merchantId);
    for (const [name, events, contentType] of [
      ['Payout listener', ['payout'], 'php-post'],
      ['Shop orders', ['transaction'], 'json'],
    ] as const) {
      const created = await client.post('/api/webhooks', { name, url: CLOSED_PORT_URL, events, contentType });
      if (created.status !== 201) throw new Error(`could not create a webhook: ${created.status} ${created.text}`);
      webhooks[name] = created.body.id;
    }
    commands = await AmqpTap.bind(EXCHANGES.commands, '#');

    browser = await openBrowser('ui-events', { viewport: { width: 1280, height: 900 } });
    ({ page } = browser);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await commands?.close();
    await running?.close();
  }, 30_000);

  it('walks the catalog: every kind, its event types, each version’s example as JSON and PHP form lines, its schema', async () => {
    const catalog: Json[] = (await client.get('/api/event-types')).body.data;
    expect(catalog.map((kind) => kind.kind)).toEqual([...EVENT_KINDS]);

    await page.goto(`${running.baseUrl}/`);
    await page.getByLabel('E-mail address').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'Events', exact: true }).click();
    await page.getByRole('heading', { name: 'Events', level: 1 }).waitFor();
    expect(page.url()).toBe(`${running.baseUrl}/#/events`);

    for (const kind of catalog) {
      const section = page.getByRole('region', { name: kind.label, exact: true });
      await section.waitFor();
      await expect(section.locator('p code').allTextContents()).resolves.toEqual(kind.types);
      // Newest version first, and open; the older ones a click away.
      await expect(
        section.locator('details.catalog-version').evaluateAll((all) => all.map((d) => d.getAttribute('data-version'))),
      ).resolves.toEqual([...WEBHOOK_VERSIONS].reverse());
      for (const version of kind.versions) {
        const block = section.locator(`details.catalog-version[data-version="${version.version}"]`);
        if ((await block.getAttribute('open')) === null) {
          await block.locator('summary').first().click();
        }
        const what = `${kind.kind} events, version ${version.version}`;
        const json = block.getByLabel(`JSON example of ${what}`, { exact: true });
        await expect(json.textContent()).resolves.toBe(JSON.stringify(version.example, null, 2));
        // The form body one pair a line, decoded as PHP reads it.
        const form = version.encodings.find((encoding: Json) => encoding.contentType === 'php-post');
        const lines = [...new URLSearchParams(form.body)].map(([name, value]) => `${name}=${value}`);
        const shown = block.getByLabel(`PHP form post example of ${what}`, { exact: true });
        await expect(shown.textContent()).resolves.toBe(lines.join('\n'));
        await block.getByText('JSON Schema', { exact: true }).click();
        const schema = await block.getByLabel(`JSON Schema of ${what}`, { exact: true }).textContent();
        expect(JSON.parse(schema!)).toEqual(version.schema);
      }
    }

    // What the versions differ in shows: 3-D Secure only in the newer transaction payload.
    const transactions = page.getByRole('region', { name: catalog[0].label, exact: true });
    const newest = transactions
      .locator(`details[data-version="${WEBHOOK_VERSIONS.at(-1)}"] figure[data-content-type="php-post"] pre`)
      .first();
    await expect(newest.textContent()).resolves.toContain('transaction[3dsecure][eci]=05');
    const oldest = transactions
      .locator(`details[data-version="${WEBHOOK_VERSIONS[0]}"] figure[data-content-type="php-post"] pre`)
      .first();
    await expect(oldest.textContent()).resolves.not.toContain('3dsecure');
  });

  it('sends an example to a webhook that receives its kind; offers none where no webhook does', async () => {
    const catalog: Json[] = (await client.get('/api/event-types')).body.data;
    const label = (kind: string) => catalog.find((entry) => entry.kind === kind).label;

    const payouts = page.getByRole('region', { name: label('payout'), exact: true });
    const select = payouts.getByLabel('Webhook', { exact: true });
    // Only the webhooks that receive payouts.
    await expect(select.locator('option').allTextContents()).resolves.toEqual([
      expect.stringMatching(/^Payout listener \(.*PHP form post\)$/),
    ]);
    await select.selectOption({ label: (await select.locator('option').first().textContent())! });
    const before = commands.messages.length;
    await payouts.getByRole('button', { name: 'Send this example' }).click();
    await payouts.getByRole('status').getByText('Sent to').waitFor();
    await expect(payouts.getByRole('link', { name: 'Payout listener' }).getAttribute('href')).resolves.toBe(
      `#/webhooks/${webhooks['Payout listener']}`,
    );
    const command = await waitFor(
      () => commands.messages.slice(before).find((m) => m.body.webhookId === webhooks['Payout listener']),
      { what: 'the test command of the example' },
    );
    expect(command!.body).toMatchObject({
      type: 'webhook.test',
      eventType: 'payout',
      webhookId: webhooks['Payout listener'],
    });

    // No webhook of this merchant receives subscriptions: nothing to choose, a way to add one.
    const subscriptions = page.getByRole('region', { name: label('subscription'), exact: true });
    await expect(subscriptions.getByRole('button', { name: 'Send this example' }).count()).resolves.toBe(0);
    await expect(subscriptions.getByText(/None of your webhooks receives/).isVisible()).resolves.toBe(true);

    // The link leads to the webhook's page.
    await payouts.getByRole('link', { name: 'Payout listener' }).click();
    await page.getByRole('heading', { name: 'Payout listener' }).waitFor();
  });
});
