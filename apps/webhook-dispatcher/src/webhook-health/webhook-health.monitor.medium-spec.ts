import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { AmqpClient, EXCHANGES, type WebhookHealthReport } from '#messaging';
import { AmqpTap, appTestEnv, waitFor } from '#testing';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { loadWebhookDispatcherConfig } from '../config/webhook-dispatcher.config.js';
import {
  DISABLE_AFTER_FAILURES,
  FAILING_NOTICE_AFTER_MS,
  type HealthRow,
  type MonitoredWebhook,
  WebhookHealthMonitor,
} from './webhook-health.monitor.js';
import type { WebhookCache } from '../webhook/webhook.cache.js';
import { dispatcherSpecInfrastructure, type DispatcherSpecBroker } from '../../test/spec-infrastructure.js';

const HOUR = 3_600_000;

/**
 * When a webhook's health is reported to webhook-config (CONTRACT §5): the rules on a health row (`due`), and the
 * reports published on the real broker (a tap of webhooks.health sees them) and marked in the real
 * delivery.webhook_health, once per episode — also across two processes. The webhooks come from a map (the cache of
 * webhook-config's table is not what is tested here).
 * On a database and vhost of its own (provisionOwnInfrastructure): its reports reach no other suite.
 */
describe('WebhookHealthMonitor (real PostgreSQL, RabbitMQ)', () => {
  const config = loadWebhookDispatcherConfig(appTestEnv());
  let infra: DispatcherSpecBroker;
  let admin: pg.Pool;
  const webhooks = new Map<string, MonitoredWebhook>();
  const cache = { forDelivery: async (id: string) => webhooks.get(id) } as unknown as WebhookCache;
  const merchantId = randomUUID();
  let db: DataSource;
  let amqp: AmqpClient;
  let tap: AmqpTap<WebhookHealthReport>;
  let monitors: WebhookHealthMonitor[];

  beforeAll(async () => {
    infra = await dispatcherSpecInfrastructure('health-monitor', { poolSize: 2, topology: config.topology });
    ({ admin, db, amqp } = infra);
    tap = await AmqpTap.bind<WebhookHealthReport>(EXCHANGES.health, '#', infra.own.amqpUrl);
    // Two processes: each remembers only what it sent itself.
    monitors = [0, 1].map(() => new WebhookHealthMonitor(db, config, amqp, cache));
  });
  afterAll(async () => {
    await tap?.close();
    await infra?.close();
  });

  const row = (overrides: Partial<HealthRow> = {}): HealthRow => ({
    webhook_id: randomUUID(),
    failing_since: null,
    failures_in_a_row: 0,
    failing_reported_for: null,
    disable_reported_for: null,
    gone_at: null,
    gone_reported_for: null,
    ...overrides,
  });
  const enabled: MonitoredWebhook = { merchantId, enabled: true, enabledAt: null };
  const typesDue = (health: HealthRow, webhook: MonitoredWebhook, now: number) =>
    monitors[0].due(health, webhook, now).map((report) => report.type);

  describe('due', () => {
    const now = Date.now();

    it('reports nothing for a webhook that is not failing, or is disabled', () => {
      expect(typesDue(row(), enabled, now)).toEqual([]);
      const failing = row({ failing_since: new Date(now - 2 * config.disableAfterMs), failures_in_a_row: 99 });
      expect(typesDue(failing, { ...enabled, enabled: false }, now)).toEqual([]);
    });

    it('reports failing after an hour, once per episode', () => {
      const since = new Date(now - FAILING_NOTICE_AFTER_MS);
      expect(typesDue(row({ failing_since: new Date(since.getTime() + 1) }), enabled, now)).toEqual([]);
      expect(typesDue(row({ failing_since: since }), enabled, now)).toEqual(['webhook.failing']);
      expect(typesDue(row({ failing_since: since, failing_reported_for: since }), enabled, now)).toEqual([]);
      // An earlier episode's report does not count for this one.
      const earlier = new Date(since.getTime() - HOUR);
      expect(typesDue(row({ failing_since: since, failing_reported_for: earlier }), enabled, now)).toEqual([
        'webhook.failing',
      ]);
    });

    it(`reports failing-too-long after WEBHOOK_DISABLE_AFTER with ${DISABLE_AFTER_FAILURES} failures at least`, () => {
      const since = new Date(now - config.disableAfterMs);
      const reported = { failing_since: since, failing_reported_for: since };
      expect(typesDue(row({ ...reported, failures_in_a_row: DISABLE_AFTER_FAILURES - 1 }), enabled, now)).toEqual([]);
      expect(typesDue(row({ ...reported, failures_in_a_row: DISABLE_AFTER_FAILURES }), enabled, now)).toEqual([
        'webhook.failing-too-long',
      ]);
    });

    it('counts the episode from the enabling when its merchant enabled the webhook after it began', () => {
      const since = new Date(now - 2 * config.disableAfterMs);
      const health = row({ failing_since: since, failures_in_a_row: 50 });
      const enabledAt = new Date(now - HOUR / 2);
      expect(typesDue(health, { ...enabled, enabledAt }, now)).toEqual([]);
      const due = monitors[0].due(health, { ...enabled, enabledAt }, now + config.disableAfterMs);
      expect(due).toEqual([
        { type: 'webhook.failing', at: enabledAt },
        { type: 'webhook.failing-too-long', at: enabledAt },
      ]);
    });

    it('reports a 410 of this episode at once, once per answer', () => {
      const since = new Date(now - 60_000);
      const goneAt = new Date(now - 1_000);
      expect(monitors[0].due(row({ failing_since: since, gone_at: goneAt }), enabled, now)).toEqual([
        { type: 'webhook.gone', at: goneAt },
      ]);
      expect(typesDue(row({ failing_since: since, gone_at: goneAt, gone_reported_for: goneAt }), enabled, now)).toEqual(
        [],
      );
      // A 410 before the merchant enabled it again belongs to an earlier episode.
      expect(
        typesDue(row({ failing_since: since, gone_at: goneAt }), { ...enabled, enabledAt: new Date(now) }, now),
      ).toEqual([]);
    });
  });

  it('publishes a due report on webhooks.health and marks it in the database: neither process sends it again', async () => {
    const webhookId = randomUUID();
    webhooks.set(webhookId, enabled);
    const since = new Date(Date.now() - 2 * HOUR);
    await admin.query(
      `INSERT INTO delivery.webhook_health (webhook_id, last_attempt_at, failing_since, failures_in_a_row)
       VALUES ($1, now(), $2, 3)`,
      [webhookId, since],
    );
    const health = row({ webhook_id: webhookId, failing_since: since, failures_in_a_row: 3 });
    // Two batches of the same process side by side: one report.
    await Promise.all([monitors[0].observe([health]), monitors[0].observe([health])]);
    const mine = () => tap.messages.filter((m) => m.body.webhookId === webhookId);
    await waitFor(() => mine().length >= 1);
    expect(mine().map((m) => m.body)).toEqual([
      { v: 1, type: 'webhook.failing', webhookId, merchantId, failingSince: since.toISOString(), failures: 3 },
    ]);
    const [marked] = (
      await admin.query(`SELECT failing_reported_for FROM delivery.webhook_health WHERE webhook_id = $1`, [webhookId])
    ).rows;
    expect(marked.failing_reported_for).toEqual(since);

    // The other process reads the row as the log writer leaves it: marked, nothing due.
    await monitors[1].observe([{ ...health, failing_reported_for: marked.failing_reported_for }]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(mine()).toHaveLength(1);
  });

  it('reports nothing for a webhook deleted meanwhile', async () => {
    const webhookId = randomUUID();
    await monitors[0].observe([row({ webhook_id: webhookId, failing_since: new Date(Date.now() - 2 * HOUR) })]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(tap.messages.filter((m) => m.body.webhookId === webhookId)).toEqual([]);
  });
});
