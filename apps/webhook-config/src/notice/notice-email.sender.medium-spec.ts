import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID, randomUUIDv7 } from 'node:crypto';
import { dataSourceOptions, WEBHOOK_CONFIG_DATABASE } from '#persistence';
import { appTestEnv, freePort, insertMerchant, insertWebhook, testEnv, waitFor } from '#testing';
import pg from 'pg';
import { SMTPServer } from 'smtp-server';
import { DataSource } from 'typeorm';
import { loadWebhookConfigConfig } from '../config/webhook-config.config.js';
import { NoticeEmailRepository } from './notice-email.repository.js';
import { retryDelayMs } from '../common/outbox.loop.js';
import { NoticeEmailSender } from './notice-email.sender.js';
import { NoticeMailer } from './notice.mailer.js';

interface Mail {
  to: string[];
  text: string;
}

/** A real SMTP server on loopback `port` that keeps every message it accepts. */
async function startSmtp(port: number, mails: Mail[]): Promise<() => Promise<void>> {
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    closeTimeout: 1_000,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        mails.push({ to: session.envelope.rcptTo.map((rcpt) => rcpt.address), text: Buffer.concat(chunks).toString() });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return () => new Promise((resolve) => server.close(() => resolve()));
}

/**
 * The notice e-mail outbox and its sender against a real SMTP server and a real database: an e-mail written with its
 * notice goes out once; while the server is down it is kept with its error and tried again, then sent once.
 */
describe('NoticeEmailSender: the notice e-mail outbox (real PostgreSQL, SMTP)', () => {
  const admin = new pg.Pool({ connectionString: testEnv().databaseUrl, max: 2 });
  const mails: Mail[] = [];
  let db: DataSource;
  let port: number;
  let sender: NoticeEmailSender;
  let stopSmtp: (() => Promise<void>) | undefined;
  let merchantId: string;
  let webhookId: string;

  beforeAll(async () => {
    port = await freePort();
    db = await new DataSource(
      dataSourceOptions({ url: testEnv().databaseUrl, poolSize: 2, ...WEBHOOK_CONFIG_DATABASE }),
    ).initialize();
    const config = loadWebhookConfigConfig(
      appTestEnv({
        SMTP_URL: `smtp://127.0.0.1:${port}`,
        MAIL_FROM: 'notices@example.com',
        SMTP_TIMEOUT: '1s',
        SMTP_RETRY_MAX: '1s',
      }),
    );
    sender = new NoticeEmailSender(config, new NoticeEmailRepository(db), new NoticeMailer(config));
    merchantId = await insertMerchant(admin);
    webhookId = await insertWebhook(admin, { merchantId, name: 'Shop orders' });
  });
  afterAll(async () => {
    await sender.onApplicationShutdown();
    await stopSmtp?.();
    await db.destroy();
    await admin.end();
  });

  /** A notice of the webhook with one pending e-mail to a recipient of its own; the recipient. */
  async function queueEmail(): Promise<{ recipient: string; emailId: string }> {
    const noticeId = randomUUIDv7();
    const emailId = randomUUID();
    const recipient = `${randomUUID()}@example.com`;
    await admin.query(
      `INSERT INTO webhook_notice (id, merchant_id, webhook_id, kind, reason, failing_since)
       VALUES ($1, $2, $3, 'disabled', 'gone', $4)`,
      [noticeId, merchantId, webhookId, new Date(Date.now() - Math.random() * 1e9)],
    );
    await admin.query(`INSERT INTO notice_email (id, notice_id, recipient) VALUES ($1, $2, $3)`, [
      emailId,
      noticeId,
      recipient,
    ]);
    return { recipient, emailId };
  }
  const rowOf = async (id: string) =>
    (await admin.query(`SELECT state, attempts, last_error AS "lastError" FROM notice_email WHERE id = $1`, [id]))
      .rows[0];

  it('doubles the wait after each failed try, up to SMTP_RETRY_MAX', () => {
    expect([1, 2, 3, 4].map((attempts) => retryDelayMs(attempts, 60_000))).toEqual([1_000, 2_000, 4_000, 8_000]);
    expect(retryDelayMs(40, 60_000)).toBe(60_000);
  });

  it('keeps an e-mail with its error while the SMTP server is down, and sends it once when it is back', async () => {
    const { recipient, emailId } = await queueEmail();
    sender.onApplicationBootstrap();
    sender.nudge();
    const failed = await waitFor(async () => {
      const row = await rowOf(emailId);
      return row.lastError && row;
    });
    expect(failed).toMatchObject({ state: 'pending' });
    expect(failed.attempts).toBeGreaterThanOrEqual(1);

    stopSmtp = await startSmtp(port, mails);
    await waitFor(async () => (await rowOf(emailId)).state === 'sent', { timeoutMs: 15_000 });
    const mine = mails.filter((mail) => mail.to.includes(recipient));
    expect(mine).toHaveLength(1);
    expect(mine[0].text).toContain('Shop orders');
    expect(mine[0].text).toContain('410 Gone');
    expect((await rowOf(emailId)).lastError).toBeNull();
  });

  it('sends an e-mail written while it runs once, at a nudge, and never again', async () => {
    const { recipient, emailId } = await queueEmail();
    sender.nudge();
    await waitFor(async () => (await rowOf(emailId)).state === 'sent');
    await new Promise((resolve) => setTimeout(resolve, 1_500)); // another poll of the outbox
    expect(mails.filter((mail) => mail.to.includes(recipient))).toHaveLength(1);
    expect(await rowOf(emailId)).toMatchObject({ state: 'sent', attempts: 1 });
  });
});
