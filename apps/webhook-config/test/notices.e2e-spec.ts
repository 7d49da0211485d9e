import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AmqpClient, EXCHANGES, publishWebhookHealthReport } from '#messaging';
import { freePort, testEnv, waitFor } from '#testing';
import { SMTPServer } from 'smtp-server';
import { AmqpTap } from './support/amqp-tap.js';
import {
  createUser,
  newMerchantSession,
  PUBLIC_URL,
  type Client,
  type RunningApp,
  startApp,
} from './support/harness.js';

/** A real SMTP server on loopback that keeps every message it accepts. */
async function startSmtp(): Promise<{
  url: string;
  mails: Array<{ to: string[]; text: string }>;
  stop: () => Promise<void>;
}> {
  const mails: Array<{ to: string[]; text: string }> = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        mails.push({ to: session.envelope.rcptTo.map((rcpt) => rcpt.address), text: Buffer.concat(chunks).toString() });
        callback();
      });
    },
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('notices of failing webhooks (e2e over RabbitMQ, HTTP and a real SMTP server)', () => {
  let running: RunningApp;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let client: Client;
  let amqp: AmqpClient;
  let configTap: AmqpTap;
  let owner: string;
  let colleague: string;

  beforeAll(async () => {
    smtp = await startSmtp();
    running = await startApp({ SMTP_URL: smtp.url, MAIL_FROM: 'Payments <webhooks@payments.example>' });
    client = await newMerchantSession(running);
    // Every backend user of the merchant gets the e-mail.
    owner = (await client.get('/api/session')).body.email;
    colleague = await createUser(running.baseUrl, client.merchantId, 'colleague@shop.example');
    amqp = new AmqpClient({ url: testEnv().amqpUrl, name: 'test-dispatcher-reports', topology: { retryDelaysMs: [] } });
    await amqp.waitForConnect();
    configTap = await AmqpTap.bind(EXCHANGES.config);
  });
  afterAll(async () => {
    await configTap.close();
    await amqp.close();
    await running.close();
    await smtp.stop();
  });

  const notices = async () => (await client.get('/api/notices')).body.data as Array<Record<string, unknown>>;

  it('tells the merchant once per episode that a webhook has been failing for an hour, in the backend and by e-mail', async () => {
    const { id, name } = (
      await client.post('/api/webhooks', { name: 'Shop orders', url: PUBLIC_URL, events: ['transaction'] })
    ).body;
    const failingSince = new Date(Date.now() - 3_700_000).toISOString();
    const report = {
      type: 'webhook.failing' as const,
      webhookId: id,
      merchantId: client.merchantId,
      failingSince,
      failures: 4,
    };
    await publishWebhookHealthReport(amqp, report);
    await publishWebhookHealthReport(amqp, report); // as a second dispatcher process may
    await waitFor(async () => (await notices()).length === 1, { what: 'the notice' });
    await waitFor(() => smtp.mails.length === 2, { what: 'the e-mails' });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await notices()).toEqual([
      {
        id: expect.any(String),
        kind: 'failing',
        reason: null,
        webhookId: id,
        webhookName: name,
        failingSince,
        createdAt: expect.any(String),
      },
    ]);
    // One e-mail per backend user of the merchant.
    expect(smtp.mails).toHaveLength(2);
    expect(smtp.mails.map((mail) => mail.to).sort()).toEqual([[colleague], [owner]].sort());
    expect(smtp.mails[0].text).toContain('Subject: =?UTF-8?');
    expect(smtp.mails[0].text).toMatch(/From: Payments <webhooks@payments\.example>/);
    expect(smtp.mails[0].text.replace(/=\r?\n/g, '')).toMatch(/has not accepted the webhook/);
    // Still enabled: failing is not disabled.
    expect((await client.get(`/api/webhooks/${id}`)).body).toMatchObject({ enabled: true });
  });

  it('disables a webhook failing for WEBHOOK_DISABLE_AFTER (reason failing), tells the dispatchers and the merchant once', async () => {
    const { id } = (await client.post('/api/webhooks', { name: 'Dead shop', url: PUBLIC_URL, events: ['transaction'] }))
      .body;
    const mailsBefore = smtp.mails.length;
    const changesBefore = configTap.messages.length;
    const failingSince = new Date(Date.now() - 6 * 86_400_000).toISOString();
    const report = {
      type: 'webhook.failing-too-long' as const,
      webhookId: id,
      merchantId: client.merchantId,
      failingSince,
      failures: 12,
    };
    await publishWebhookHealthReport(amqp, report);
    await waitFor(async () => (await client.get(`/api/webhooks/${id}`)).body.enabled === false, { what: 'disabled' });
    expect((await client.get(`/api/webhooks/${id}`)).body.health).toMatchObject({
      state: 'disabled',
      disabledReason: 'failing',
    });
    await waitFor(() => configTap.messages.slice(changesBefore).some((message) => message.body.webhookId === id), {
      what: 'the webhook.changed message',
    });
    await waitFor(() => smtp.mails.length === mailsBefore + 2, { what: 'the e-mails' });
    expect(smtp.mails.at(-1)!.text.replace(/=\r?\n/g, '')).toMatch(/was disabled because every attempt since/);
    expect((await notices())[0]).toMatchObject({ kind: 'disabled', reason: 'failing', webhookId: id, failingSince });
    // Again: nothing more.
    await publishWebhookHealthReport(amqp, report);
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(smtp.mails.length).toBe(mailsBefore + 2);
    expect((await notices()).filter((notice) => notice.webhookId === id)).toHaveLength(1);
    // Enabled by the merchant: its reason goes.
    expect((await client.patch(`/api/webhooks/${id}`, { enabled: true })).body.health).toMatchObject({
      state: 'healthy',
      disabledReason: null,
    });
  });

  it('does nothing for a webhook the merchant disabled itself, or one of another merchant', async () => {
    const { id } = (await client.post('/api/webhooks', { name: 'Paused', url: PUBLIC_URL, events: ['transaction'] }))
      .body;
    await client.patch(`/api/webhooks/${id}`, { enabled: false });
    const mailsBefore = smtp.mails.length;
    const failingSince = new Date(Date.now() - 6 * 86_400_000).toISOString();
    await publishWebhookHealthReport(amqp, {
      type: 'webhook.failing-too-long',
      webhookId: id,
      merchantId: client.merchantId,
      failingSince,
      failures: 12,
    });
    const other = await newMerchantSession(running);
    const foreign = (await other.post('/api/webhooks', { name: 'Foreign', url: PUBLIC_URL, events: ['payout'] })).body;
    await publishWebhookHealthReport(amqp, {
      type: 'webhook.failing-too-long',
      webhookId: foreign.id,
      merchantId: client.merchantId, // not its merchant
      failingSince,
      failures: 12,
    });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect((await client.get(`/api/webhooks/${id}`)).body.health).toMatchObject({ disabledReason: 'manual' });
    expect((await other.get(`/api/webhooks/${foreign.id}`)).body.enabled).toBe(true);
    expect(smtp.mails.length).toBe(mailsBefore);
    expect((await notices()).some((notice) => notice.webhookId === id)).toBe(false);
  });
});
