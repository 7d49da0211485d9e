import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Gauge } from 'prom-client';
import type { DataSource } from 'typeorm';
import { PlatformMetrics, ScrapeRead } from '#platform';
import { FAILING_NOTICE_AFTER_MS } from './webhook-health.monitor.js';

/**
 * The enabled webhooks whose latest attempt failed, and those of them failing for FAILING_NOTICE_AFTER_MS (since the
 * first failed attempt after their last success). The failing health rows through their partial index, each of a
 * webhook that exists and is enabled (webhook-config's view, by primary key): a disabled webhook keeps the health of
 * its last attempts, and a deleted one's health row stays until its deliveries are deleted.
 */
const FAILING_SQL = `
  SELECT count(*)::int AS "lastAttemptFailed",
         count(*) FILTER (WHERE h.failing_since <= now() - $1::float8 * interval '1 millisecond')::int AS failing
    FROM webhook_health h
   WHERE h.failing_since IS NOT NULL
     AND EXISTS (SELECT FROM backend.webhook_for_dispatcher w WHERE w.id = h.webhook_id AND w.enabled)`;

interface Failing {
  lastAttemptFailed: number;
  failing: number;
}

/**
 * Failing webhooks, read from the database at scrape time: the cluster's values, the same in every dispatcher process
 * (aggregate with max()). How many are disabled is webhook-config's gauge (webhooks_disabled), which owns that.
 */
@Injectable()
export class WebhookHealthMetrics {
  private readonly database = new ScrapeRead('the failing webhooks');
  /** The read both gauges of one scrape share (they are collected concurrently). */
  private reading?: Promise<Failing | undefined>;

  constructor(
    platform: PlatformMetrics,
    @InjectDataSource() private readonly db: DataSource,
  ) {
    const registers = [platform.registry];
    const failing: Gauge = new Gauge({
      name: 'webhooks_failing',
      help:
        'Enabled webhooks whose attempts have all failed for at least an hour (their merchant is notified); NaN when ' +
        'the database did not answer. The same in every dispatcher process: aggregate with max()',
      registers,
      collect: async () => failing.set((await this.read())?.failing ?? NaN),
    });
    const lastAttemptFailed: Gauge = new Gauge({
      name: 'webhooks_last_attempt_failed',
      help:
        'Enabled webhooks whose latest attempt failed, however recently (the backend shows them as failing); NaN ' +
        'when the database did not answer. The same in every dispatcher process: aggregate with max()',
      registers,
      collect: async () => lastAttemptFailed.set((await this.read())?.lastAttemptFailed ?? NaN),
    });
  }

  private read(): Promise<Failing | undefined> {
    this.reading ??= this.database
      .read(async () => ((await this.db.query(FAILING_SQL, [FAILING_NOTICE_AFTER_MS])) as Failing[])[0])
      .finally(() => (this.reading = undefined));
    return this.reading;
  }
}
