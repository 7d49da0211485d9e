import { Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Counter, Gauge, type Registry } from 'prom-client';
import { isTransientDatabaseError } from '#persistence';

/**
 * How far the replica is behind, in seconds, as the replica itself tells: 0 while its WAL receiver streams from the
 * primary and it has replayed everything received (also 0 when the URL names a server that is not a standby); else
 * the age of the last transaction it replayed, an upper bound that grows while replay is paused or the replica is cut
 * off from the primary; null when it is behind but has replayed no transaction since it started (unknown: lagging).
 * Every function here may be called by any role (pg_stat_wal_receiver shows its pid to everyone).
 */
export const REPLICA_LAG_SQL = `
  SELECT CASE WHEN NOT pg_is_in_recovery() THEN 0
              WHEN pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn()
                   AND EXISTS (SELECT 1 FROM pg_stat_wal_receiver WHERE pid IS NOT NULL) THEN 0
              ELSE EXTRACT(EPOCH FROM now() - pg_last_xact_replay_timestamp()) END::float8 AS lag`;

/** `up`: reads go to the replica; `lagging` (further behind than the limit) and `down`: to the primary. */
export type ReplicaState = 'up' | 'lagging' | 'down';

/** Why a read meant for the replica was answered by the primary (the `reason` label of the fallback counter). */
export type FallbackReason = 'down' | 'lagging' | 'error' | 'miss';

export interface ReplicaStatus {
  state: ReplicaState;
  /** The last measured lag in seconds; null when the replica did not answer or could not tell. */
  lagSeconds: number | null;
}

/** How an app reaches its replica: its own kind of connection (a pg pool, a TypeORM data source), opened lazily. */
export interface ReadReplicaOptions<C> {
  /** Prometheus registry of the app (PlatformMetrics) for the lag gauge and the fallback counter. */
  registry: Registry;
  /** DATABASE_READ_MAX_LAG: further behind than this, reads go to the primary until it has caught up. */
  maxLagMs: number;
  /** Connects to the replica with the app's session settings. Called again after a failure, at the next probe. */
  open: () => Promise<C>;
  /** The rows of `sql` run on the connection (the lag probe). */
  rows: (connection: C, sql: string) => Promise<Array<Record<string, unknown>>>;
  close: (connection: C) => Promise<void>;
}

/** Reads measure the lag again when the last measurement is older than this (one tiny statement on the replica). */
const PROBE_EVERY_MS = 1_000;
/** A probe with no answer in this time marks the replica down (a replica that hangs must not hold reads up). */
const PROBE_TIMEOUT_MS = 2_000;
/** Warnings (a replica down, lagging, failed reads) are logged at most this often; recovery once after them. */
const WARN_EVERY_MS = 60_000;

/**
 * The read replica (DATABASE_READ_URL) of the reads that may be a moment old — the merchant read API, the webhook
 * log — and the fallback to the primary. `read(onReplica, onPrimary)` runs a read on the replica while it is `up`,
 * and on the primary when the replica is `down` (a probe or a read could not reach it, or it did not answer in time)
 * or `lagging` (further behind than DATABASE_READ_MAX_LAG); a read that fails on the replica with a transient error
 * (connection refused or lost, statement timeout, a conflict with recovery) is marked down and repeated on the
 * primary, so the caller gets an answer either way. The state comes from a probe of REPLICA_LAG_SQL, at most once a
 * second while reads come in (not awaited by them), at each /metrics scrape and each /health/ready. Every fallback is
 * counted (`database_replica_fallbacks_total{reason}`); warnings are logged at most once a minute. Without a replica
 * (DATABASE_READ_URL unset) every read runs on the primary and nothing else happens: no connection, no metric.
 */
export class ReadReplica<C = unknown> implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('ReadReplica');
  private readonly fallbacks?: Counter<'reason'>;
  /** Until the first probe answers, reads try the replica (a failure falls back and marks it down). */
  private status: ReplicaStatus = { state: 'up', lagSeconds: null };
  private connection?: Promise<C>;
  private probing?: Promise<void>;
  private probedAt = -Infinity;
  private closed = false;
  private warnedAt = -Infinity;
  /** Warnings not logged since the last one (at most one a minute). */
  private unlogged = 0;
  /** Whether a warning was logged since the replica was last known up: its recovery is logged then. */
  private warned = false;

  constructor(private readonly options?: ReadReplicaOptions<C>) {
    if (!options) return;
    const { registry } = options;
    this.fallbacks = new Counter({
      name: 'database_replica_fallbacks_total',
      help:
        'Reads meant for the read replica (DATABASE_READ_URL) answered by the primary, by reason: down (the replica ' +
        'did not answer the last probe or read), lagging (further behind than DATABASE_READ_MAX_LAG), error (the read ' +
        'failed on the replica and was repeated on the primary), miss (a single record the replica did not have yet)',
      labelNames: ['reason'],
      registers: [registry],
    });
    for (const reason of ['down', 'lagging', 'error', 'miss'] satisfies FallbackReason[])
      this.fallbacks.inc({ reason }, 0);
    const lag: Gauge = new Gauge({
      name: 'database_replica_lag_seconds',
      help:
        'How far the read replica is behind the primary, as the replica measures it (0 while it streams and has ' +
        'replayed everything it received); NaN when it does not answer or cannot tell',
      registers: [registry],
      collect: async () => lag.set((await this.check()).lagSeconds ?? NaN),
    });
  }

  /** Whether DATABASE_READ_URL is set (otherwise every read runs on the primary). */
  get configured(): boolean {
    return this.options !== undefined;
  }

  /**
   * `onReplica` on the replica while it is up, else `onPrimary`; also `onPrimary` when `onReplica` fails with a
   * transient database error, or when `missed` says its answer lacks what was asked for (a record written a moment
   * ago, not replayed yet: the caller may have just been told about it). Any other error is the caller's.
   */
  async read<T>(onReplica: (replica: C) => Promise<T>, onPrimary: () => Promise<T>, missed?: (answer: T) => boolean) {
    if (!this.options) return onPrimary();
    if (!this.closed && Date.now() - this.probedAt >= PROBE_EVERY_MS) void this.check();
    const { state } = this.status;
    if (state !== 'up') return this.fellBack(state, onPrimary);
    let answer: T;
    try {
      answer = await onReplica(await this.connect());
    } catch (error) {
      if (!isTransientDatabaseError(error)) throw error;
      this.update({ state: 'down', lagSeconds: null }, `a read failed on it: ${(error as Error).message}`, true);
      return this.fellBack('error', onPrimary);
    }
    return missed?.(answer) ? this.fellBack('miss', onPrimary) : answer;
  }

  /**
   * Probes the replica now (or joins the probe under way) and answers its state: for /health/ready and /metrics.
   * With `waitMs`, answers the state known so far if the probe takes longer (it goes on, and sets the state).
   */
  async check(waitMs?: number): Promise<ReplicaStatus> {
    if (this.options && !this.closed) {
      this.probing ??= this.probe().finally(() => (this.probing = undefined));
      let timer: NodeJS.Timeout | undefined;
      const waited = waitMs === undefined ? [] : [new Promise((resolve) => (timer = setTimeout(resolve, waitMs)))];
      await Promise.race([this.probing, ...waited]);
      clearTimeout(timer);
    }
    return this.status;
  }

  onApplicationBootstrap(): void {
    // Known from the start: a replica that is away at start costs the first reads nothing.
    if (this.options) void this.check();
  }

  async onApplicationShutdown(): Promise<void> {
    this.closed = true;
    await this.probing;
    const connection = await this.connection?.catch(() => undefined);
    if (connection && this.options) await this.options.close(connection);
  }

  private async probe(): Promise<void> {
    const { maxLagMs, rows } = this.options!;
    this.probedAt = Date.now();
    let timer: NodeJS.Timeout | undefined;
    try {
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${PROBE_TIMEOUT_MS} ms`)), PROBE_TIMEOUT_MS);
      });
      const [row] = await Promise.race([this.connect().then((connection) => rows(connection, REPLICA_LAG_SQL)), late]);
      const lagSeconds = row?.lag === null || row?.lag === undefined ? null : Number(row.lag);
      if (lagSeconds !== null && lagSeconds * 1_000 <= maxLagMs) this.update({ state: 'up', lagSeconds });
      else
        this.update({ state: 'lagging', lagSeconds }, `${lagSeconds?.toFixed(1) ?? 'an unknown number of'} s behind`);
    } catch (error) {
      this.update({ state: 'down', lagSeconds: null }, (error as Error).message);
    } finally {
      clearTimeout(timer);
    }
  }

  private connect(): Promise<C> {
    this.connection ??= this.options!.open().catch((error: unknown) => {
      this.connection = undefined;
      throw error;
    });
    return this.connection;
  }

  /** Sets the state; warns when it turns `down` or `lagging` (and at every failed read, `always`). */
  private update(status: ReplicaStatus, why = '', always = false): void {
    const before = this.status.state;
    this.status = status;
    if (status.state === 'up') {
      if (before !== 'up' && this.warned) this.logger.log('the read replica answers again: reads use it again');
      this.warned = false;
    } else if (before !== status.state || always) {
      this.warn(`read replica ${status.state} (${why}): reads go to the primary until it is back`);
    }
  }

  private fellBack<T>(reason: FallbackReason, onPrimary: () => Promise<T>): Promise<T> {
    this.fallbacks?.inc({ reason });
    return onPrimary();
  }

  private warn(message: string): void {
    const now = Date.now();
    if (now - this.warnedAt < WARN_EVERY_MS) {
      this.unlogged += 1;
      return;
    }
    const more = this.unlogged ? ` (${this.unlogged} more such warning(s) in the last minute not logged)` : '';
    this.logger.warn(`${message}${more}`);
    this.warnedAt = now;
    this.unlogged = 0;
    this.warned = true;
  }
}
