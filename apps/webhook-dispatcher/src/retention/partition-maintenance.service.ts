import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, QueryRunner } from 'typeorm';
import { DELIVERY_EVENT_TIME_WINDOW_MS } from '#domain';
import { WebhookDispatcherConfig } from '../config/webhook-dispatcher.config.js';
import { SupersededRepository } from '../delivery/superseded.repository.js';
import { WebhookHealthRepository } from '../webhook-health/webhook-health.repository.js';
import { PartitionMaintenanceMetrics } from './partition-maintenance.metrics.js';

/** Session advisory lock: one maintenance run at a time across every dispatcher process of the database. */
export const MAINTENANCE_LOCK_KEY = 727_200;

/** Day partitions kept ready after today's: a week of writes even if no maintenance runs meanwhile. */
export const DAYS_AHEAD = 7;

/** How often a detach that gave up on its lock (500 ms: the table was busy) is tried again within one run. */
const DETACH_TRIES = 3;
const DETACH_PAUSE_MS = 1_000;

const DAY_MS = 86_400_000;

/** What one run did: the partitions it created, detached and dropped, and how long each step took (ms). */
export interface MaintenanceReport {
  created: string[];
  detached: string[];
  dropped: string[];
  ms: { create: number; detach: number; drop: number };
}

/** The UTC day of an instant, as `YYYY-MM-DD`. */
const utcDay = (time: number) => new Date(time).toISOString().slice(0, 10);

/**
 * Keeps the day partitions of webhook_delivery and webhook_log (libs/persistence migration DeliveryPartitions):
 * creates today's and the next DAYS_AHEAD days' when missing, and removes each day whose end is more than
 * WEBHOOK_LOG_RETENTION ago — plus DELIVERY_EVENT_TIME_WINDOW_MS, by which a delivery's created_at may precede its
 * fan-out, so that no repeat (the retention exceeds the retry schedule) finds its delivery gone. A day is detached
 * (a catalog change under the parent's lock, a moment) and then dropped (its files, locking nothing in use): never
 * a DELETE. One process at a time (a session advisory lock), through the functions the migration created: the
 * dispatcher's role may create and drop no table itself.
 */
@Injectable()
export class PartitionMaintenance {
  private readonly logger = new Logger(PartitionMaintenance.name);

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly config: WebhookDispatcherConfig,
    private readonly metrics: PartitionMaintenanceMetrics,
    private readonly health: WebhookHealthRepository,
    private readonly superseded: SupersededRepository,
  ) {}

  /** The instant before which a day must have ended to be removed at `now`. */
  cutoff(now: number): Date {
    return new Date(now - this.config.logRetentionMs - DELIVERY_EVENT_TIME_WINDOW_MS);
  }

  /**
   * One run at `now`, unless another process is running one ('skipped'). Throws what failed, after counting and
   * logging it; what it did before stays done, and the next run goes on from there.
   */
  async run(now: number = Date.now()): Promise<MaintenanceReport | 'skipped'> {
    const runner = this.db.createQueryRunner();
    try {
      await runner.connect();
      const [{ locked }] = await runner.query('SELECT pg_try_advisory_lock($1) AS locked', [MAINTENANCE_LOCK_KEY]);
      if (!locked) {
        this.metrics.runs.inc({ result: 'skipped' });
        return 'skipped';
      }
      try {
        const report = await this.maintain(runner, now);
        this.metrics.runs.inc({ result: 'ok' });
        this.metrics.lastSuccess.set(Date.now() / 1000);
        if (report.created.length || report.detached.length || report.dropped.length) {
          const { create, detach, drop } = report.ms;
          this.logger.log({
            msg:
              `partitions: created ${report.created.length}, dropped ${report.dropped.length} ` +
              `(days ended before ${this.cutoff(now).toISOString()}) in ${create} + ${detach} + ${drop} ms`,
            created: report.created,
            dropped: report.dropped,
          });
        }
        return report;
      } finally {
        await runner.query('SELECT pg_advisory_unlock($1)', [MAINTENANCE_LOCK_KEY]);
      }
    } catch (error) {
      this.metrics.runs.inc({ result: 'failed' });
      this.logger.error({ msg: `partition maintenance failed: ${(error as Error).message}`, err: error });
      throw error;
    } finally {
      await runner.release();
    }
  }

  private async maintain(runner: QueryRunner, now: number): Promise<MaintenanceReport> {
    const report: MaintenanceReport = { created: [], detached: [], dropped: [], ms: { create: 0, detach: 0, drop: 0 } };
    let started = performance.now();
    const lap = () => {
      const ms = Math.round((performance.now() - started) * 10) / 10;
      started = performance.now();
      return ms;
    };
    const created: Array<{ name: string }> = await runner.query(
      'SELECT create_day_partitions($1::date, $2::date) AS name',
      [utcDay(now), utcDay(now + DAYS_AHEAD * DAY_MS)],
    );
    report.created = created.map((row) => row.name);
    this.metrics.created.inc(report.created.length);
    report.ms.create = lap();

    const cutoff = this.cutoff(now);
    for (;;) {
      const name = await this.detachOne(runner, cutoff);
      if (name === null) break;
      report.detached.push(name);
    }
    report.ms.detach = lap();
    // Also those a run detached and could not drop (it failed or its process stopped in between).
    for (;;) {
      const [{ name }]: Array<{ name: string | null }> = await runner.query('SELECT drop_detached_partition() AS name');
      if (name === null) break;
      report.dropped.push(name);
      this.metrics.dropped.inc();
    }
    report.ms.drop = lap();
    // What the other modules keep beside the partitions, each by its owner: the health's hourly counts, and each
    // subject's newest delivered event (superseded repeats), needed no longer than a delivery is.
    await this.health.forgetOldHours();
    await this.superseded.forgetDeliveredBefore(cutoff);
    return report;
  }

  /** Detaches one expired partition, trying again a moment later when its table was busy (lock_timeout, 55P03). */
  private async detachOne(runner: QueryRunner, cutoff: Date): Promise<string | null> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        const [{ name }]: Array<{ name: string | null }> = await runner.query(
          'SELECT detach_expired_partition($1) AS name',
          [cutoff],
        );
        return name;
      } catch (error) {
        if ((error as { code?: string }).code !== '55P03' || attempt >= DETACH_TRIES) throw error;
        await new Promise((resolve) => setTimeout(resolve, DETACH_PAUSE_MS));
      }
    }
  }
}
