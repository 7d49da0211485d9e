import { Inject, Injectable } from '@nestjs/common';
import type pg from 'pg';
import { Gauge } from 'prom-client';
import { PlatformMetrics, ScrapeRead } from '#platform';
import { PG_POOL } from '../common/pg-pool.js';

/** The database cancels the read after this long; the scrape waits a little longer (pool checkout included). */
const STATEMENT_TIMEOUT_MS = 1_500;

/**
 * The relay's backlog, both through the pending index (`outbox_event_pending_idx`, the unsent rows by `seq`): the
 * count, and the oldest row's age. An unsent row is usually one the relay has not reached yet, so both stay small.
 */
const BACKLOG_SQL = `
  SELECT count(*)::float8 AS unpublished,
         COALESCE(EXTRACT(EPOCH FROM now() - (SELECT created_at FROM outbox_event WHERE sent_at IS NULL
                                               ORDER BY seq LIMIT 1)), 0)::float8 AS "oldestAgeSeconds"
    FROM outbox_event WHERE sent_at IS NULL`;

interface Backlog {
  unpublished: number;
  oldestAgeSeconds: number;
}

/**
 * The outbox backlog, read from the database at scrape time. Every transaction-api process reads the same table and
 * reports the same values: aggregate with max().
 */
@Injectable()
export class OutboxMetrics {
  private readonly database = new ScrapeRead('the outbox backlog', STATEMENT_TIMEOUT_MS + 500);
  /** The read both gauges of one scrape share (they are collected concurrently). */
  private reading?: Promise<Backlog | undefined>;

  constructor(
    platform: PlatformMetrics,
    @Inject(PG_POOL) private readonly pool: pg.Pool,
  ) {
    const unpublished: Gauge = new Gauge({
      name: 'outbox_events_unpublished',
      help:
        'Events in the outbox not yet published to RabbitMQ (the relay backlog); NaN when the database did not ' +
        'answer. Every transaction-api process reports the same value: aggregate with max()',
      registers: [platform.registry],
      collect: async () => unpublished.set((await this.backlog())?.unpublished ?? NaN),
    });
    const oldestAge: Gauge = new Gauge({
      name: 'outbox_oldest_unpublished_event_age_seconds',
      help:
        'Age of the oldest event in the outbox not yet published (0: none waiting); NaN when the database did not ' +
        'answer. Every transaction-api process reports the same value: aggregate with max()',
      registers: [platform.registry],
      collect: async () => oldestAge.set((await this.backlog())?.oldestAgeSeconds ?? NaN),
    });
  }

  private backlog(): Promise<Backlog | undefined> {
    this.reading ??= this.database.read(() => this.query()).finally(() => (this.reading = undefined));
    return this.reading;
  }

  private async query(): Promise<Backlog> {
    const client = await this.pool.connect();
    try {
      await client.query(`BEGIN READ ONLY; SET LOCAL statement_timeout = ${STATEMENT_TIMEOUT_MS}`);
      const { rows } = await client.query<Backlog>(BACKLOG_SQL);
      await client.query('COMMIT');
      client.release();
      return rows[0];
    } catch (error) {
      // Not back into the pool inside a failed transaction: the connection is closed instead.
      client.release(error as Error);
      throw error;
    }
  }
}
