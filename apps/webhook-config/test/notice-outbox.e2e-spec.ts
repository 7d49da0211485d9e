import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server, type Socket } from 'node:net';
import { AmqpClient, publishWebhookHealthReport, QUEUES, type WebhookHealthReport } from '#messaging';
import { freePort, testEnv, waitFor } from '#testing';
import { SMTPServer } from 'smtp-server';
import { DataSource } from 'typeorm';
import {
  createUser,
  newMerchantSession,
  PUBLIC_URL,
  type Client,
  type RunningApp,
  startApp,
} from './support/harness.js';

interface Mail {
  to: string[];
  text: string;
}

/**
 * A real SMTP server on a fixed loopback port that keeps every message it accepts — or, with `hang`, one that takes
 * each message's data and never answers it (the e-mail is not accepted).
 */
async function startSmtp(
  port: number,
  mails: Mail[],
  options: { hangAtData?: boolean } = {},
): Promise<() => Promise<void>> {
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    closeTimeout: 1_000,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if (options.hangAtData) return; // never answers: the client's socket timeout gives up
        mails.push({ to: session.envelope.rcptTo.map((rcpt) => rcpt.address), text: Buffer.concat(chunks).toString() });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return () => new Promise((resolve) => server.close(() => resolve()));
}

/** A server that accepts TCP connections on `port` and never says a word (no SMTP greeting). */
async function startSilentServer(port: number): Promise<{ stop: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    stop: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('notices that are never lost (e2e: real SMTP servers stopped and hanging, PostgreSQL away)', () => {
  let running: RunningApp;
  let client: Client;
  let amqp: AmqpClient;
  let smtpPort: number;
  let owner: string;
  let colleague: string;
  const mails: Mail[] = [];
  let stopSmtp: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    smtpPort = await freePort();
    // Nothing listens on the SMTP port yet: SMTP is down.
    running = await startApp({
      SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
      MAIL_FROM: 'Payments <webhooks@payments.example>',
      SMTP_TIMEOUT: '1s',
      SMTP_RETRY_MAX: '1s',
    });
    client = await newMerchantSession(running);
    owner = (await client.get('/api/session')).body.email;
    colleague = await createUser(running.baseUrl, client.merchantId, 'colleague@outbox.example');
    amqp = new AmqpClient({ url: testEnv().amqpUrl, name: 'test-outbox-reports', topology: { retryDelaysMs: [] } });
    await amqp.waitForConnect();
  });
  afterAll(async () => {
    await amqp.close();
    await running.close();
    await stopSmtp?.();
  });

  const webhook = async (name: string) =>
    (await client.post('/api/webhooks', { name, url: PUBLIC_URL, events: ['transaction'] })).body as {
      id: string;
      name: string;
    };
  const report = (
    type: WebhookHealthReport['type'],
    webhookId: string,
    failingSince: string,
  ): Omit<WebhookHealthReport, 'v'> => ({
    type,
    webhookId,
    merchantId: client.merchantId,
    failingSince,
    failures: 12,
  });
  const outbox = async (webhookId: string) =>
    (await running.db.query(
      `SELECT e.recipient, e.state, e.attempts, e.last_error AS "lastError"
         FROM backend.notice_email e JOIN backend.webhook_notice n ON n.id = e.notice_id
        WHERE n.webhook_id = $1 ORDER BY e.recipient`,
      [webhookId],
    )) as Array<{ recipient: string; state: string; attempts: number; lastError: string | null }>;
  const mailsTo = (address: string) => mails.filter((mail) => mail.to.includes(address));
  const parked = () => amqp.queueDepth(QUEUES.parkedWebhookHealth);

  it('SMTP stopped: the webhook is disabled, nothing is parked, and each user gets one e-mail once SMTP is back', async () => {
    const { id } = await webhook('Down while SMTP is down');
    const parkedBefore = await parked();
    await publishWebhookHealthReport(amqp, report('webhook.failing-too-long', id, new Date().toISOString()));
    await waitFor(async () => (await client.get(`/api/webhooks/${id}`)).body.enabled === false, { what: 'disabled' });
    // Tried (refused: nothing listens), kept, tried again.
    await waitFor(async () => (await outbox(id)).filter((row) => row.attempts >= 2).length === 2, {
      what: 'tries',
      timeoutMs: 15_000,
    });
    const rows = await outbox(id);
    expect(rows.map((row) => row.recipient)).toEqual([colleague, owner].sort());
    expect(rows.every((row) => row.state === 'pending' && /ECONNREFUSED/.test(row.lastError ?? ''))).toBe(true);
    expect(mails).toHaveLength(0);
    expect(await parked()).toBe(parkedBefore);

    stopSmtp = await startSmtp(smtpPort, mails);
    await waitFor(() => mails.length === 2, { what: 'the e-mails', timeoutMs: 15_000 });
    await sleep(2_500); // more tries would have come by now
    expect(mailsTo(owner)).toHaveLength(1);
    expect(mailsTo(colleague)).toHaveLength(1);
    expect((await outbox(id)).every((row) => row.state === 'sent')).toBe(true);
    expect(mails[0].text.replace(/=\r?\n/g, '')).toMatch(/was disabled because every attempt since/);
  });

  it('SMTP hanging (no greeting, then no answer to DATA): each try gives up in seconds; one e-mail each once it answers', async () => {
    await stopSmtp?.();
    stopSmtp = undefined;
    const silent = await startSilentServer(smtpPort);
    const { id } = await webhook('Down while SMTP hangs');
    const before = mails.length;
    const started = Date.now();
    try {
      await publishWebhookHealthReport(amqp, report('webhook.failing-too-long', id, new Date().toISOString()));
      await waitFor(async () => (await outbox(id)).filter((row) => row.attempts >= 2 && row.lastError).length === 2, {
        what: 'two timed-out tries each',
        timeoutMs: 20_000,
      });
      // Two tries of two e-mails one after another, each given up after SMTP_TIMEOUT (1 s), with 1 s between tries:
      // seconds, where nodemailer's own timeouts would have held the first try for minutes.
      expect(Date.now() - started).toBeLessThan(15_000);
      expect((await outbox(id))[0].lastError).toMatch(/greeting never received|timeout/i);
    } finally {
      await silent.stop();
    }

    // Now a server that takes the data and never answers it.
    const hung: Mail[] = [];
    const stopHung = await startSmtp(smtpPort, hung, { hangAtData: true });
    try {
      const attempts = (await outbox(id)).map((row) => row.attempts);
      await waitFor(async () => (await outbox(id)).every((row, i) => row.attempts > attempts[i] + 1), {
        what: 'tries against a server silent after DATA',
        timeoutMs: 20_000,
      });
      expect(mails.length).toBe(before);
    } finally {
      await stopHung();
    }

    stopSmtp = await startSmtp(smtpPort, mails);
    await waitFor(() => mails.length === before + 2, { what: 'the e-mails', timeoutMs: 15_000 });
    await sleep(2_500);
    expect(
      mails
        .slice(before)
        .map((mail) => mail.to)
        .sort(),
    ).toEqual([[colleague], [owner]].sort());
    expect((await outbox(id)).every((row) => row.state === 'sent')).toBe(true);
  });

  it('a sender that claimed an e-mail and died before sending it: sent once its lease runs out, and only then', async () => {
    const { id } = await webhook('Claimed and crashed');
    const before = mails.length;
    // What a sender leaves when it dies between claiming and sending: a pending e-mail claimed for 3 more seconds.
    const [notice] = await running.db.query(
      `INSERT INTO backend.webhook_notice (id, merchant_id, webhook_id, kind, reason, failing_since)
       VALUES (gen_random_uuid(), $1, $2, 'failing', NULL, now() - interval '2 hours') RETURNING id`,
      [client.merchantId, id],
    );
    await running.db.query(
      `INSERT INTO backend.notice_email (id, notice_id, recipient, attempts, claimed_until)
       VALUES (gen_random_uuid(), $1, $2, 1, now() + interval '3 seconds')`,
      [notice.id, owner],
    );
    await sleep(1_500);
    expect(mails.length).toBe(before); // still claimed
    await waitFor(() => mails.length === before + 1, { what: 'the e-mail after the lease', timeoutMs: 10_000 });
    await sleep(1_500);
    expect(mails.slice(before).map((mail) => mail.to)).toEqual([[owner]]);
    expect(mails.at(-1)!.text.replace(/=\r?\n/g, '')).toMatch(/has not accepted the webhook/);
    expect((await outbox(id))[0]).toMatchObject({ state: 'sent', attempts: 2 });
  });

  it('PostgreSQL away for 5 minutes (longer than the queue’s delivery limit lasts): the report waits and is handled when it is back', async () => {
    const { id } = await webhook('Reported while the database is away');
    const parkedBefore = await parked();
    const before = mails.length;
    const database = new URL(testEnv().databaseUrl).pathname.slice(1);
    const adminUrl = new URL(testEnv().databaseUrl);
    adminUrl.pathname = '/postgres';
    // Another database of the server: this test's own is closed to every connection for a while.
    const admin = await new DataSource({ type: 'postgres', url: adminUrl.toString(), poolSize: 1 }).initialize();
    try {
      await admin.query(`ALTER DATABASE "${database}" ALLOW_CONNECTIONS false`);
      await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1`, [database]);
      await publishWebhookHealthReport(amqp, report('webhook.failing-too-long', id, new Date().toISOString()));
      // Given back at once after each failure, a report would be parked after 20 deliveries (about 80 s with the
      // client's requeue pause): held and retried in-process, it is not — for the 5 minutes issue #31 names.
      await sleep(300_000);
      expect(await parked()).toBe(parkedBefore);
    } finally {
      await admin.query(`ALTER DATABASE "${database}" ALLOW_CONNECTIONS true`);
      await admin.destroy();
    }
    await waitFor(async () => (await client.get(`/api/webhooks/${id}`)).body.enabled === false, {
      what: 'disabled once the database is back',
      timeoutMs: 30_000,
    });
    await waitFor(() => mails.length === before + 2, { what: 'the e-mails', timeoutMs: 15_000 });
    expect(await parked()).toBe(parkedBefore);
  }, 420_000);

  it('a report acts only on its episode: not after a manual enabling, not after a success; again for a new episode', async () => {
    const { id } = await webhook('Enabled again by hand');
    await client.patch(`/api/webhooks/${id}`, { enabled: false });
    const enabledAt = Date.now();
    await client.patch(`/api/webhooks/${id}`, { enabled: true });
    // A report of the episode before the enabling (late, or from a dispatcher that did not know yet): stale.
    await publishWebhookHealthReport(
      amqp,
      report('webhook.failing-too-long', id, new Date(enabledAt - 86_400_000).toISOString()),
    );
    // An episode that an attempt has left since (the dispatcher's health: a success after it began).
    const other = await webhook('Succeeded since');
    const episode = new Date(Date.now() - 3_600_000);
    await running.db.query(
      `INSERT INTO delivery.webhook_health (webhook_id, last_attempt_at, last_success_at, failing_since, failures_in_a_row)
       VALUES ($1, now(), now(), NULL, 0)`,
      [other.id],
    );
    await publishWebhookHealthReport(amqp, report('webhook.failing-too-long', other.id, episode.toISOString()));
    await publishWebhookHealthReport(amqp, report('webhook.failing', other.id, episode.toISOString()));
    await sleep(1_500);
    for (const hook of [id, other.id]) {
      expect((await client.get(`/api/webhooks/${hook}`)).body).toMatchObject({ enabled: true });
    }
    const notices = (await client.get('/api/notices')).body.data as Array<{ webhookId: string }>;
    expect(notices.filter((notice) => [id, other.id].includes(notice.webhookId))).toEqual([]);

    // The episode counted from the enabling (what the dispatcher reports for it): acted on.
    await publishWebhookHealthReport(
      amqp,
      report('webhook.failing-too-long', id, new Date(enabledAt + 1_000).toISOString()),
    );
    await waitFor(async () => (await client.get(`/api/webhooks/${id}`)).body.enabled === false, { what: 'disabled' });
    expect((await client.get(`/api/webhooks/${id}`)).body.health.disabledReason).toBe('failing');
    await waitFor(async () => (await outbox(id)).filter((row) => row.state === 'sent').length === 2, {
      what: 'its e-mails',
    });
  });

  it('410 Gone: disabled at once with reason gone, a notice that says so, and one e-mail per user', async () => {
    const { id, name } = await webhook('Gone shop');
    const before = mails.length;
    const answeredAt = new Date().toISOString();
    await publishWebhookHealthReport(amqp, report('webhook.gone', id, answeredAt));
    await publishWebhookHealthReport(amqp, report('webhook.gone', id, answeredAt));
    await waitFor(async () => (await client.get(`/api/webhooks/${id}`)).body.enabled === false, { what: 'disabled' });
    expect((await client.get(`/api/webhooks/${id}`)).body.health).toMatchObject({
      state: 'disabled',
      disabledReason: 'gone',
    });
    const notices = (await client.get('/api/notices')).body.data as Array<Record<string, unknown>>;
    expect(notices.filter((notice) => notice.webhookId === id)).toEqual([
      expect.objectContaining({ kind: 'disabled', reason: 'gone', webhookName: name, failingSince: answeredAt }),
    ]);
    await waitFor(() => mails.length === before + 2, { what: 'the e-mails' });
    await sleep(1_000);
    expect(mails.length).toBe(before + 2);
    expect(mails.at(-1)!.text.replace(/=\r?\n/g, '')).toMatch(/answered =E2=80=9C410 Gone|answered “410 Gone/);
    // Enabled again by its merchant: the reason goes.
    expect((await client.patch(`/api/webhooks/${id}`, { enabled: true })).body.health.disabledReason).toBeNull();
  });
});
