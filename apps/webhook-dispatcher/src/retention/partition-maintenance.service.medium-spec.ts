import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { DELIVERY_EVENT_TIME_WINDOW_MS } from '#domain';
import { dataSourceOptions, WEBHOOK_DISPATCHER_DATABASE } from '#persistence';
import { PlatformMetrics } from '#platform';
import {
  appTestEnv,
  insertDelivery,
  insertMerchant,
  insertWebhook,
  type OwnInfrastructure,
  provisionOwnInfrastructure,
} from '#testing';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { DatabaseRetry } from '../common/database-retry.js';
import { loadWebhookDispatcherConfig } from '../config/webhook-dispatcher.config.js';
import { SupersededRepository } from '../delivery/superseded.repository.js';
import { WebhookHealthRepository } from '../webhook-health/webhook-health.repository.js';
import { PartitionMaintenanceMetrics } from './partition-maintenance.metrics.js';
import { DAYS_AHEAD, MAINTENANCE_LOCK_KEY, PartitionMaintenance } from './partition-maintenance.service.js';

const DAY_MS = 86_400_000;
/** The UTC day of an instant, as the partitions are named (`webhook_log_p20261126`). */
const dayName = (time: number) => new Date(time).toISOString().slice(0, 10).replaceAll('-', '');

/**
 * Retention on its own migrated database (it drops day partitions: the run's shared database stays whole for the
 * other specs), as the dispatcher's role: the days ahead are created, the expired ones detached and dropped, old
 * health hours and delivered subjects forgotten, and one run at a time.
 */
describe('PartitionMaintenance (real PostgreSQL)', () => {
  let own: OwnInfrastructure;
  const config = loadWebhookDispatcherConfig(appTestEnv());
  let admin: pg.Client;
  let db: DataSource;
  let maintenance: PartitionMaintenance;
  let metrics: PartitionMaintenanceMetrics;

  const partitions = async () =>
    (await admin.query<{ parent: string; name: string }>(`SELECT parent, name FROM delivery.day_partitions()`)).rows;

  beforeAll(async () => {
    own = await provisionOwnInfrastructure('retention');
    admin = new pg.Client({ connectionString: own.databaseUrl });
    await admin.connect();
    db = await new DataSource(
      dataSourceOptions({ url: own.databaseUrl, poolSize: 2, ...WEBHOOK_DISPATCHER_DATABASE }),
    ).initialize();
    metrics = new PartitionMaintenanceMetrics(new PlatformMetrics(), config, db);
    const retry = new DatabaseRetry();
    maintenance = new PartitionMaintenance(
      db,
      config,
      metrics,
      new WebhookHealthRepository(db, retry),
      new SupersededRepository(db, retry),
    );
  });
  afterAll(async () => {
    await db?.destroy();
    await admin?.end();
    await own?.teardown();
  });

  it(`keeps today's and the next ${DAYS_AHEAD} days' partitions of every day-partitioned table, and creates none twice`, async () => {
    const now = Date.now();
    const first = await maintenance.run(now);
    expect(first).not.toBe('skipped');
    const names = new Set((await partitions()).map((p) => p.name));
    for (let day = 0; day <= DAYS_AHEAD; day += 1) {
      expect(names).toContain(`webhook_delivery_p${dayName(now + day * DAY_MS)}`);
      expect(names).toContain(`webhook_log_p${dayName(now + day * DAY_MS)}`);
      expect(names).toContain(`webhook_delivery_outcome_p${dayName(now + day * DAY_MS)}`);
    }
    const again = await maintenance.run(now);
    expect(again).toMatchObject({ created: [], detached: [], dropped: [] });
    expect((await metrics.runs.get()).values.find((v) => v.labels.result === 'ok')?.value).toBe(2);
  });

  it('removes each day that ended more than the retention (plus the event time window) ago, with its rows, and no later day', async () => {
    const merchantId = await insertMerchant(admin);
    const webhookId = await insertWebhook(admin, { merchantId });
    const today = Date.now();
    const old = await insertDelivery(admin, { webhookId, merchantId, createdAt: new Date(today - 2 * DAY_MS) });
    const kept = await insertDelivery(admin, { webhookId, merchantId, createdAt: new Date(today) });
    // Run as if it were the retention later: the day two days back has ended long enough ago, today not yet.
    const later = today + config.logRetentionMs - DAY_MS + DELIVERY_EVENT_TIME_WINDOW_MS;
    expect(maintenance.cutoff(later).getTime()).toBe(later - config.logRetentionMs - DELIVERY_EVENT_TIME_WINDOW_MS);

    const report = await maintenance.run(later);
    if (report === 'skipped') throw new Error('skipped');
    expect(report.detached).toEqual(expect.arrayContaining([`webhook_delivery_p${dayName(today - 2 * DAY_MS)}`]));
    expect(report.dropped).toContain(`webhook_delivery_p${dayName(today - 2 * DAY_MS)}`);
    expect(report.detached).not.toContain(`webhook_delivery_p${dayName(today)}`);
    const left = new Set((await partitions()).map((p) => p.name));
    for (const name of report.detached) expect(left).not.toContain(name);
    expect(left).toContain(`webhook_delivery_p${dayName(today)}`);
    const ids = (
      await admin.query<{ id: string }>(`SELECT id FROM webhook_delivery WHERE webhook_id = $1`, [webhookId])
    ).rows;
    expect(ids.map((row) => row.id)).toEqual([kept]);
    expect(ids.map((row) => row.id)).not.toContain(old);
  });

  it('forgets health hours older than 25 hours and delivered subjects older than the cutoff', async () => {
    const webhookId = randomUUID();
    await admin.query(
      `INSERT INTO delivery.webhook_health_hour (webhook_id, hour, attempts, failures)
       VALUES ($1, date_trunc('hour', now()) - interval '26 hours', 1, 1), ($1, date_trunc('hour', now()), 1, 0)`,
      [webhookId],
    );
    const now = Date.now();
    const [oldSubject, newSubject] = [randomUUID(), randomUUID()];
    await admin.query(
      `INSERT INTO delivery.subject_delivered (webhook_id, event_type, subject_id, position, delivered_hour)
       VALUES ($1, 'transaction', $2, 1, $4), ($1, 'transaction', $3, 1, $5)`,
      [webhookId, oldSubject, newSubject, maintenance.cutoff(now + DAY_MS), new Date(now)],
    );
    await maintenance.run(now + 2 * DAY_MS);
    const hours = await admin.query(`SELECT 1 FROM delivery.webhook_health_hour WHERE webhook_id = $1`, [webhookId]);
    expect(hours.rowCount).toBe(1);
    const subjects = await admin.query<{ subject_id: string }>(
      `SELECT subject_id FROM delivery.subject_delivered WHERE webhook_id = $1`,
      [webhookId],
    );
    expect(subjects.rows.map((row) => row.subject_id)).toEqual([newSubject]);
  });

  it('skips a run while another process holds the maintenance lock', async () => {
    await admin.query('SELECT pg_advisory_lock($1)', [MAINTENANCE_LOCK_KEY]);
    try {
      expect(await maintenance.run()).toBe('skipped');
    } finally {
      await admin.query('SELECT pg_advisory_unlock($1)', [MAINTENANCE_LOCK_KEY]);
    }
    expect(await maintenance.run()).not.toBe('skipped');
  });
});
