import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import type { WebhookHealthReport } from '#messaging';
import { dataSourceOptions, WEBHOOK_CONFIG_DATABASE } from '#persistence';
import { appTestEnv, insertMerchant, insertWebhook, testEnv } from '#testing';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { loadWebhookConfigConfig } from '../config/webhook-config.config.js';
import type { WebhookChangePublisher } from '../webhook/webhook-change.publisher.js';
import type { NoticeEmailSender } from './notice-email.sender.js';
import { NoticeMailer } from './notice.mailer.js';
import { NoticeRepository } from './notice.repository.js';
import { NoticeService } from './notice.service.js';
import { OperationalEventOutbox } from '../operational-event/operational-event.outbox.js';
import { OperationalEventRelay } from '../operational-event/operational-event.relay.js';

const HOUR = 3_600_000;

/**
 * The rules of a health report (CONTRACT §5) on a real database, as webhook-config's role: what is disabled, what
 * notice and e-mails are recorded, once per episode, and never for a webhook out of the episode. The broker
 * announcement and the e-mail sender are our own collaborators, recorded here (the outbox spec sends the e-mails).
 */
describe('NoticeService (real PostgreSQL)', () => {
  const admin = new pg.Pool({ connectionString: testEnv().databaseUrl, max: 2 });
  const announced: string[] = [];
  let nudges = 0;
  let db: DataSource;
  let notices: NoticeService;
  let merchantId: string;

  beforeAll(async () => {
    db = await new DataSource(
      dataSourceOptions({ url: testEnv().databaseUrl, poolSize: 2, ...WEBHOOK_CONFIG_DATABASE }),
    ).initialize();
    // SMTP_URL set: notices are queued as e-mails (the mailer connects only to send, which this spec never does).
    const config = loadWebhookConfigConfig(
      appTestEnv({ SMTP_URL: 'smtp://127.0.0.1:1', MAIL_FROM: 'notices@example.com' }),
    );
    const changes = { changed: async (_merchantId: string, webhookId: string) => void announced.push(webhookId) };
    const sender = { nudge: () => void (nudges += 1) };
    notices = new NoticeService(
      new NoticeRepository(db),
      changes as unknown as WebhookChangePublisher,
      new NoticeMailer(config),
      sender as unknown as NoticeEmailSender,
      new OperationalEventOutbox(db),
      { nudge: () => undefined } as unknown as OperationalEventRelay,
    );
    merchantId = await insertMerchant(admin);
    for (const email of ['a@example.com', 'b@example.com'])
      await admin.query(`INSERT INTO backend_user (id, merchant_id, email, password_hash) VALUES ($1, $2, $3, 'x')`, [
        randomUUID(),
        merchantId,
        `${randomUUID()}-${email}`,
      ]);
  });
  afterAll(async () => {
    await db.destroy();
    await admin.end();
  });

  const report = (type: WebhookHealthReport['type'], webhookId: string, failingSince: Date): WebhookHealthReport => ({
    v: 1,
    type,
    webhookId,
    merchantId,
    failingSince: failingSince.toISOString(),
    failures: 12,
  });
  const stateOf = async (webhookId: string) =>
    (await admin.query(`SELECT enabled, disabled_reason AS reason FROM webhook WHERE id = $1`, [webhookId])).rows[0];
  const noticesOf = async (webhookId: string) =>
    (
      await admin.query(
        `SELECT n.kind, n.reason, (SELECT count(*)::int FROM notice_email e WHERE e.notice_id = n.id) AS emails
           FROM webhook_notice n WHERE n.webhook_id = $1 ORDER BY n.created_at`,
        [webhookId],
      )
    ).rows;
  /** The operational events written about a webhook: type, state, reason, oldest first. */
  const eventsOf = async (webhookId: string) =>
    (
      await admin.query(
        `SELECT type, payload->'data'->>'state' AS state, payload->'data'->>'disabledReason' AS reason
           FROM operational_event WHERE webhook_id = $1 ORDER BY id`,
        [webhookId],
      )
    ).rows;

  it('a webhook failing for an hour: one notice with an e-mail per backend user, once per episode; it stays enabled', async () => {
    const webhookId = await insertWebhook(admin, { merchantId });
    const since = new Date(Date.now() - HOUR);
    const before = nudges;
    await notices.handle(report('webhook.failing', webhookId, since));
    await notices.handle(report('webhook.failing', webhookId, since));
    expect(await noticesOf(webhookId)).toEqual([{ kind: 'failing', reason: null, emails: 2 }]);
    expect(await stateOf(webhookId)).toEqual({ enabled: true, reason: null });
    expect(nudges - before).toBe(1);
    expect(announced).not.toContain(webhookId);
    expect(await eventsOf(webhookId)).toEqual([{ type: 'webhook.failing', state: 'failing', reason: null }]);
    // A new episode is noticed again.
    await notices.handle(report('webhook.failing', webhookId, new Date()));
    expect(await noticesOf(webhookId)).toHaveLength(2);
    expect((await notices.recent(merchantId)).filter((n) => n.webhookId === webhookId)).toHaveLength(2);
  });

  it('failing too long or gone: disables the webhook with its reason, records a disabled notice and announces it, once', async () => {
    for (const [type, reason] of [
      ['webhook.failing-too-long', 'failing'],
      ['webhook.gone', 'gone'],
    ] as const) {
      const webhookId = await insertWebhook(admin, { merchantId });
      const since = new Date(Date.now() - 72 * HOUR);
      await notices.handle(report(type, webhookId, since));
      await notices.handle(report(type, webhookId, since));
      expect(await stateOf(webhookId)).toEqual({ enabled: false, reason });
      expect(await noticesOf(webhookId)).toEqual([{ kind: 'disabled', reason, emails: 2 }]);
      expect(announced.filter((id) => id === webhookId)).toHaveLength(1);
      expect(await eventsOf(webhookId)).toEqual([{ type: 'webhook.disabled', state: 'disabled', reason }]);
    }
  });

  it('leaves a webhook alone that its merchant enabled after the episode began, or that succeeded since', async () => {
    const since = new Date(Date.now() - 72 * HOUR);
    const enabledLater = await insertWebhook(admin, { merchantId, enabledAt: new Date(since.getTime() + HOUR) });
    const succeeded = await insertWebhook(admin, { merchantId });
    await admin.query(
      `INSERT INTO delivery.webhook_health (webhook_id, last_attempt_at, last_success_at, failing_since)
       VALUES ($1, now(), $2, now())`,
      [succeeded, new Date(since.getTime() + HOUR)],
    );
    const disabledByHand = await insertWebhook(admin, { merchantId, enabled: false });
    for (const webhookId of [enabledLater, succeeded, disabledByHand]) {
      await notices.handle(report('webhook.failing-too-long', webhookId, since));
      await notices.handle(report('webhook.failing', webhookId, since));
      expect(await noticesOf(webhookId)).toEqual([]);
      expect(announced).not.toContain(webhookId);
      expect(await eventsOf(webhookId)).toEqual([]);
    }
    expect(await stateOf(enabledLater)).toEqual({ enabled: true, reason: null });
    expect(await stateOf(disabledByHand)).toEqual({ enabled: false, reason: 'manual' });
  });
});
