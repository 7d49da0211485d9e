import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Counter, Gauge } from 'prom-client';
import type { DataSource } from 'typeorm';
import { PlatformMetrics, ScrapeRead } from '#platform';
import { WebhookDispatcherConfig } from '../config/webhook-dispatcher.config.js';

/** How a maintenance run ended: done, failed (the next run tries again), or skipped (another process ran one). */
export const MAINTENANCE_RESULTS = ['ok', 'failed', 'skipped'] as const;
export type MaintenanceResult = (typeof MAINTENANCE_RESULTS)[number];

/** The day-partitioned tables, as the metrics label them. */
export const PARTITIONED_TABLES = ['webhook_delivery', 'webhook_log', 'webhook_delivery_outcome'] as const;

interface Extent {
  parent: string;
  oldest: Date;
  newestEnd: Date;
}

/**
 * The partition maintenance's metrics: what this process did (runs, partitions created and dropped, its last
 * success), and what the tables hold, read from the catalog at scrape time — the cluster's values, the same in every
 * process (aggregate with max() or min()).
 */
@Injectable()
export class PartitionMaintenanceMetrics {
  readonly runs: Counter<'result'>;
  readonly created: Counter;
  readonly dropped: Counter;
  readonly lastSuccess: Gauge;
  private readonly catalog = new ScrapeRead('the delivery partitions');
  /** The read the gauges of one scrape share (they are collected concurrently). */
  private reading?: Promise<Extent[] | undefined>;

  constructor(
    platform: PlatformMetrics,
    config: WebhookDispatcherConfig,
    @InjectDataSource() private readonly db: DataSource,
  ) {
    const registers = [platform.registry];
    this.runs = new Counter({
      name: 'webhook_partition_maintenance_runs_total',
      help:
        'Partition maintenance runs of this process: ok, failed (tried again at the next run), skipped (another ' +
        'dispatcher process was running one)',
      labelNames: ['result'] as const,
      registers,
    });
    for (const result of MAINTENANCE_RESULTS) this.runs.inc({ result }, 0);
    this.created = new Counter({
      name: 'webhook_partitions_created_total',
      help: 'Day partitions of webhook_delivery and webhook_log created ahead by this process',
      registers,
    });
    this.dropped = new Counter({
      name: 'webhook_partitions_dropped_total',
      help: 'Day partitions of webhook_delivery and webhook_log dropped by this process (older than the retention)',
      registers,
    });
    this.lastSuccess = new Gauge({
      name: 'webhook_partition_maintenance_last_success_timestamp_seconds',
      help: 'When this process last completed a partition maintenance run (Unix time; 0: not yet)',
      registers,
    });
    new Gauge({
      name: 'webhook_log_retention_seconds',
      help: 'WEBHOOK_LOG_RETENTION: deliveries and log entries older than this are removed, a day partition at a time',
      registers,
    }).set(config.logRetentionMs / 1000);
    const oldest: Gauge<'table'> = new Gauge({
      name: 'webhook_partition_oldest_age_seconds',
      help:
        'Age of the start of the oldest day partition of each table (what is kept: up to the retention, plus up to a ' +
        'day and an hour); NaN when the database did not answer. The same in every process: aggregate with max()',
      labelNames: ['table'] as const,
      registers,
      collect: async () => this.setEach(oldest, (extent, now) => (now - extent.oldest.getTime()) / 1000),
    });
    const ahead: Gauge<'table'> = new Gauge({
      name: 'webhook_partitions_ahead_seconds',
      help:
        'Time until the end of the newest day partition of each table: rows after it cannot be written (normally ' +
        'about a week); NaN when the database did not answer. The same in every process: aggregate with min()',
      labelNames: ['table'] as const,
      registers,
      collect: async () => this.setEach(ahead, (extent, now) => (extent.newestEnd.getTime() - now) / 1000),
    });
  }

  private async setEach(gauge: Gauge<'table'>, value: (extent: Extent, now: number) => number): Promise<void> {
    const extents = await this.extents();
    const now = Date.now();
    for (const table of PARTITIONED_TABLES) {
      const extent = extents?.find((e) => e.parent === table);
      gauge.set({ table }, extent ? value(extent, now) : NaN);
    }
  }

  private extents(): Promise<Extent[] | undefined> {
    this.reading ??= this.catalog
      .read<Extent[]>(() =>
        this.db.query(
          `SELECT parent, min(from_time) AS oldest, max(to_time) AS "newestEnd" FROM day_partitions() GROUP BY parent`,
        ),
      )
      .finally(() => (this.reading = undefined));
    return this.reading;
  }
}
