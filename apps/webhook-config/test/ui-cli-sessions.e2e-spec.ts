import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateApiKey, hashApiKey } from '#domain';
import { waitFor } from '#testing';
import type { Page } from 'playwright-core';
import { openBrowser, type Browser } from './support/browser.js';
import { WebSocket } from 'ws';
import {
  call,
  type Client,
  createUser,
  type Json,
  PASSWORD,
  type RunningApp,
  seedMerchant,
  signIn,
  startApp,
} from './support/harness.js';

const FORWARD_TO = 'http://localhost:4242/webhooks';
const REFUSED = 'connect ECONNREFUSED 127.0.0.1:4242';
/**
 * Screenshots of the page for docs/screenshots, written there only with UPDATE_SCREENSHOTS=1 (as ui.e2e-spec.ts does);
 * otherwise into a temporary directory removed after the run.
 */
const DOCS_SCREENSHOTS = fileURLToPath(new URL('../../../docs/screenshots/', import.meta.url));
const UPDATE_SCREENSHOTS = process.env.UPDATE_SCREENSHOTS === '1';

/**
 * The "CLI sessions" page (issue #34) in a real browser (Chromium via playwright-core): the merchant's live
 * `payments listen` sessions and each one's log. The session is a real one, started with a real API key of the
 * merchant's integration (its SHA-256 in payments.integration), its stream a `ws` client speaking
 * docs/cli-protocol.md as the command line does, its events real samples of `POST /api/cli/trigger` through RabbitMQ.
 */
describe('the CLI sessions page in Chromium (e2e)', () => {
  let running: RunningApp;
  let client: Client;
  let email: string;
  let apiKey: string;
  let browser: Browser | undefined;
  let page: Page;
  let socket: WebSocket | undefined;
  const frames: Json[] = [];
  let sessionIdOfTest: string | undefined;
  let screenshots: string | undefined;

  const cli = (method: string, path: string, body?: unknown) =>
    call(running.baseUrl, method, path, { body, headers: { authorization: `Bearer ${apiKey}` } });

  beforeAll(async () => {
    running = await startApp();
    const {
      merchantId,
      integrationIds: [integrationId],
    } = await seedMerchant(running.db, ['Online shop']);
    apiKey = generateApiKey();
    await running.db.query(`UPDATE payments.integration SET api_key_hash = $1 WHERE id = $2`, [
      hashApiKey(apiKey),
      integrationId,
    ]);
    email = await createUser(running.baseUrl, merchantId);
    client = await signIn(running.baseUrl, email, merchantId);

    screenshots = UPDATE_SCREENSHOTS
      ? DOCS_SCREENSHOTS
      : await mkdtemp(join(tmpdir(), 'webhook-config-cli-screenshots-'));
    await mkdir(screenshots, { recursive: true });
    browser = await openBrowser('ui-cli-sessions', { viewport: { width: 1280, height: 900 } });
    ({ page } = browser);
  }, 60_000);

  afterAll(async () => {
    socket?.terminate();
    await browser?.close();
    if (screenshots && !UPDATE_SCREENSHOTS) await rm(screenshots, { recursive: true, force: true });
    await running?.close();
  }, 30_000);

  /** A full-page screenshot (see DOCS_SCREENSHOTS). */
  const shot = (name: string) => page.screenshot({ path: join(screenshots!, `${name}.png`), fullPage: true });

  /** Sends a transaction sample to the session and answers its event frame with `result`, as the command line does. */
  async function triggerAndAnswer(result: { status: number; error: string | null }): Promise<Json> {
    const before = frames.length;
    const triggered = await cli('POST', '/api/cli/trigger', { kind: 'transaction' });
    expect([triggered.status, triggered.body.sessions]).toEqual([202, 1]);
    const event = await waitFor(
      () => frames.slice(before).find((frame) => frame.type === 'event' && frame.eventId === triggered.body.eventId),
      { what: 'the event frame of the sample' },
    );
    socket!.send(JSON.stringify({ type: 'result', id: event!.id, durationMs: 12, ...result }));
    return event;
  }

  it('shows how to start a session while none runs', async () => {
    await page.goto(`${running.baseUrl}/`);
    await page.getByLabel('E-mail address').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'CLI sessions', exact: true }).click();
    await page.getByRole('heading', { name: 'CLI sessions', level: 1 }).waitFor();
    expect(page.url()).toBe(`${running.baseUrl}/#/cli-sessions`);
    await expect(
      page.getByRole('link', { name: 'CLI sessions', exact: true }).getAttribute('aria-current'),
    ).resolves.toBe('page');

    await page.getByRole('heading', { name: 'No CLI sessions running', level: 2 }).waitFor();
    await expect(page.getByLabel('Command to start a session').textContent()).resolves.toBe(
      'npx payments listen --api-key <key> --forward-to http://localhost:4242/webhooks',
    );
  });

  it('lists a live session as connected, and its log shows each forwarded event explained', async () => {
    const started = await cli('POST', '/api/cli/sessions', { events: ['transaction'], forwardTo: FORWARD_TO });
    expect(started.status).toBe(201);
    const sessionId: string = started.body.id;
    const short = sessionId.slice(0, 8);

    socket = new WebSocket(`${running.baseUrl.replace(/^http/, 'ws')}/api/cli/sessions/${sessionId}/stream`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    socket.on('message', (data) => frames.push(JSON.parse(String(data))));
    await waitFor(() => frames.find((frame) => frame.type === 'ready'), { what: 'the ready frame' });

    const delivered = await triggerAndAnswer({ status: 200, error: null });
    const refused = await triggerAndAnswer({ status: 0, error: REFUSED });
    await waitFor(async () => (await client.get(`/api/cli-sessions/${sessionId}/logs`)).body.data.length === 2, {
      what: 'both results in the log',
    });

    // The list (auto refreshed, or the Refresh button) shows the session, connected.
    await page.getByRole('button', { name: 'Refresh' }).click();
    const item = page.locator(`li[data-session-id="${sessionId}"]`);
    await item.waitFor();
    await expect(item.getByRole('heading', { level: 2 }).textContent()).resolves.toBe(`Session ${short}`);
    await expect(item.locator('.badge').textContent()).resolves.toBe('Connected');
    await expect(item.locator('.badge').getAttribute('data-connected')).resolves.toBe('true');
    const options = (await client.get('/api/webhook-options')).body;
    const transactionLabel = options.events.find((option: Json) => option.type === 'transaction').label;
    const summary = Object.fromEntries(
      await item
        .locator('dl.summary dt')
        .evaluateAll((terms) => terms.map((term) => [term.textContent, term.nextElementSibling?.textContent])),
    );
    expect(summary).toEqual({
      Integration: 'Online shop',
      Events: transactionLabel,
      Version: `${options.latestVersion} (newest)`,
      Format: 'JSON',
      'Forwards to': FORWARD_TO,
      Started: expect.any(String),
      'Last seen': expect.any(String),
    });
    await expect(page.getByText('No CLI sessions running').count()).resolves.toBe(0);
    await shot('cli-sessions-desktop');

    // Its log: newest first, each status explained; status 0 with its error.
    await item.getByRole('link', { name: `Open the log of session ${short}` }).click();
    await page.getByRole('heading', { name: `CLI session ${short}`, level: 1 }).waitFor();
    expect(page.url()).toBe(`${running.baseUrl}/#/cli-sessions/${sessionId}`);
    await expect(page.getByRole('region', { name: 'Session' }).locator('.badge').textContent()).resolves.toBe(
      'Connected',
    );
    const log = page.getByRole('region', { name: 'Forwarded events' });
    const rows = log.locator('tbody tr');

    await expect(rows.count()).resolves.toBe(2);
    await expect(log.getByRole('button', { name: 'Load more' }).count()).resolves.toBe(0);

    const refusedRow = rows.filter({ hasText: refused.subjectId });
    await expect(refusedRow.getAttribute('data-status')).resolves.toBe('0');
    await expect(refusedRow.locator('td[data-label="Event"]').textContent()).resolves.toContain(refused.eventType);
    await expect(refusedRow.locator('.badge').textContent()).resolves.toBe('No reply');
    await expect(refusedRow.locator('td[data-label="Local status"]').textContent()).resolves.toContain('12 ms');
    await expect(refusedRow.locator('.explanation-title').textContent()).resolves.toBe(
      'No response from your local server',
    );
    await expect(refusedRow.locator('.remedy').textContent()).resolves.toContain('--forward-to');
    await expect(refusedRow.locator('.error').textContent()).resolves.toBe(`Error: ${REFUSED}`);

    const deliveredRow = rows.filter({ hasText: delivered.subjectId });
    await expect(deliveredRow.getAttribute('data-status')).resolves.toBe('200');
    await expect(deliveredRow.locator('td[data-label="Event"]').textContent()).resolves.toContain(delivered.eventType);
    if (delivered.referenceId) {
      await expect(deliveredRow.locator('.reference').textContent()).resolves.toBe(`Order ${delivered.referenceId}`);
    }
    await expect(deliveredRow.locator('.badge').textContent()).resolves.toBe('200');
    await expect(deliveredRow.locator('.explanation-title').textContent()).resolves.toBe('Delivered');
    await expect(deliveredRow.locator('.remedy').count()).resolves.toBe(0);
    await expect(deliveredRow.locator('.error').count()).resolves.toBe(0);
    await expect(deliveredRow.locator('time').getAttribute('datetime')).resolves.toMatch(/^\d{4}-\d\d-\d\dT/);
    await shot('cli-session-log-desktop');

    sessionIdOfTest = sessionId;
  });

  it('pages through a longer log, newest first, with "Load more"; Refresh shows what came since', async () => {
    const sessionId = sessionIdOfTest!;
    // 21 more entries (seeded, as the gateway writes them): with the two forwarded, the log has a second page. Their
    // ids cross a power of ten (9…, 10…), as a busy platform's do: newest first must be by number, not by text.
    const [{ last }] = await running.db.query(`SELECT last_value AS last FROM backend.cli_session_log_id_seq`);
    const power = 10 ** String(Number(last) + 30).length;
    await running.db.query(`SELECT setval('backend.cli_session_log_id_seq', $1)`, [power - 10]);
    await running.db.query(
      `INSERT INTO backend.cli_session_log (session_id, webhook_id, event_id, event_type, subject_id, status,
                                             duration_ms)
       SELECT $1, 'msg_seeded_' || n, gen_random_uuid(), 'transaction.updated', 'seeded-' || n, 503, 40
       FROM generate_series(1, 21) AS n`,
      [sessionId],
    );
    const newestFirst: string[] = (
      await running.db.query(
        `SELECT id::text AS id FROM backend.cli_session_log l WHERE session_id = $1 ORDER BY l.id DESC`,
        [sessionId],
      )
    ).map((row: Json) => row.id);
    expect(newestFirst).toHaveLength(23);

    const log = page.getByRole('region', { name: 'Forwarded events' });
    const rows = log.locator('tbody tr');
    const logIds = () => rows.evaluateAll((all) => all.map((row) => row.getAttribute('data-log-id')));
    await page.getByRole('button', { name: 'Refresh' }).click();
    await waitFor(async () => (await rows.count()) === 20, { what: 'the newest page' });
    await expect(logIds()).resolves.toEqual(newestFirst.slice(0, 20));

    // A seeded 503, explained as the webhook log does, with what to do locally.
    const seededRow = rows.filter({ hasText: 'seeded-21' });
    await expect(seededRow.locator('.explanation-title').textContent()).resolves.toBe('Service unavailable');
    await expect(seededRow.locator('.remedy').textContent()).resolves.toContain('npx payments trigger');

    await log.getByRole('button', { name: 'Load more' }).click();
    await waitFor(async () => (await rows.count()) === 23, { what: 'the older entries' });
    await expect(logIds()).resolves.toEqual(newestFirst);
    await expect(log.getByRole('button', { name: 'Load more' }).count()).resolves.toBe(0);
  });

  it('no longer lists a session whose command line stopped (closed with 1000)', async () => {
    const closed = new Promise<number>((resolve) => socket!.once('close', (code) => resolve(code)));
    socket!.close(1000, 'stopped');
    await expect(closed).resolves.toBe(1000);
    await waitFor(async () => (await client.get('/api/cli-sessions')).body.data.length === 0, {
      what: 'the session to end',
    });

    await page.goto(`${running.baseUrl}/#/cli-sessions`);
    await page.getByRole('heading', { name: 'CLI sessions', level: 1 }).waitFor();
    await page.getByRole('heading', { name: 'No CLI sessions running', level: 2 }).waitFor();
    await expect(page.locator('li[data-session-id]').count()).resolves.toBe(0);
  });

  it('says so when a session does not exist', async () => {
    await page.goto(`${running.baseUrl}/#/cli-sessions/${randomUUID()}`);
    await page.getByRole('heading', { name: 'Session not found', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'Back to all CLI sessions' }).click();
    await page.getByRole('heading', { name: 'CLI sessions', level: 1 }).waitFor();
  });
});
