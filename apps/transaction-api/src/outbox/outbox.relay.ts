import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import pg from 'pg';
import { AmqpClient, EXCHANGES, publishPlatformEvent, TRACEPARENT_HEADER, type PlatformEventType } from '#messaging';
import { sessionConnection, TRANSACTION_API_DATABASE } from '#persistence';
import { endPublishSpan, startPublishSpan, traceparentOf } from '#platform';
import { TransactionApiConfig } from '../config/transaction-api.config.js';
import { OUTBOX_CHANNEL, OutboxRow, OutboxStore } from './outbox.store.js';
import { withPosition } from './platform-event.js';

/** Session-level advisory lock key: at most one relay per database publishes at a time. */
export const RELAY_LOCK_KEY = 727_100;
const FAILURE_BACKOFF_MS = 1_000;
const CLEANUP_EVERY_MS = 3_600_000;

type RoundOutcome = 'idle' | 'more' | 'failed';

/**
 * Publishes the outbox to `payments.events`, in outbox order, with publisher confirms.
 *
 * - One relay at a time: the relay works only while it holds a session advisory lock on its own connection; if its
 *   process or connection dies the lock goes with it and another instance's relay takes over within `pollMs`.
 * - Low latency: writers in this process wake the relay in-process ({@link wake}) right after their commit;
 *   writers in other processes NOTIFY `outbox_event` at commit, which the holder LISTENs to; a timer every
 *   `pollMs` covers a lost notification.
 * - Order and no loss: a round reads the oldest unsent rows by `seq` and publishes them in waves that hold at most
 *   one event per subject; a wave's events are published together and awaited, and a row is marked sent only once
 *   the broker confirmed it. After a failure (broker down, publish timeout) the round stops and is repeated later
 *   from the oldest unsent row, so a subject's later event is never published before its earlier one is confirmed.
 *   Delivery is at-least-once (a confirm lost in a crash republishes); consumers deduplicate on the event id,
 *   which is also the AMQP messageId.
 * - Each event carries its `position` in its subject's history: the row's `seq` ({@link withPosition}).
 */
@Injectable()
export class OutboxRelay implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('OutboxRelay');
  private stopped = false;
  private loop?: Promise<void>;
  private wakePending = false;
  private wakeSleeper?: () => void;
  private failing = false;
  private lastCleanup = 0;
  private relaying = false;

  constructor(
    private readonly config: TransactionApiConfig,
    private readonly amqp: AmqpClient,
  ) {}

  onApplicationBootstrap(): void {
    this.loop = this.run();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    this.wake();
    await this.loop;
  }

  /** Whether this process is the one relaying the outbox right now (it holds the lock and listens). */
  get isRelaying(): boolean {
    return this.relaying;
  }

  /** Asks the relay to look at the outbox now (called after a commit that wrote events). */
  wake(): void {
    this.wakePending = true;
    this.wakeSleeper?.();
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      const client = new pg.Client({
        // The app's role and schema, as its other connections (PG_POOL) take them.
        ...sessionConnection(this.config.base.databaseUrl, TRANSACTION_API_DATABASE),
        application_name: 'transaction-api:outbox-relay',
        connectionTimeoutMillis: 5_000,
        // A query waiting on a server that was cut off silently fails after the probes instead of never.
        keepAlive: true,
        keepAliveInitialDelayMillis: 10_000,
      });
      let broken = false;
      client.on('error', (error) => {
        broken = true;
        this.logger.warn(`relay database connection failed: ${error.message}`);
        this.wake();
      });
      client.on('notification', () => this.wake());
      try {
        await client.connect();
        const store = new OutboxStore(client);
        await store.configureSession();
        await this.session(store, () => broken);
      } catch (error) {
        if (!this.stopped) this.logger.warn(`relay paused: ${(error as Error).message}`);
      } finally {
        await client.end().catch(() => undefined);
      }
      if (!this.stopped) await this.sleep(this.config.outbox.pollMs, false);
    }
  }

  /** One database session: wait for the lock, then relay until stopped or the connection breaks. */
  private async session(store: OutboxStore, broken: () => boolean): Promise<void> {
    while (!this.stopped && !(await store.tryLock(RELAY_LOCK_KEY))) {
      await this.sleep(this.config.outbox.pollMs, false);
    }
    if (this.stopped) return;
    await store.listen(OUTBOX_CHANNEL);
    this.logger.log('this instance relays the outbox');
    this.relaying = true;
    try {
      while (!this.stopped && !broken()) {
        this.wakePending = false;
        const outcome = await this.round(store);
        if (outcome === 'more') continue;
        if (outcome === 'failed') await this.sleep(FAILURE_BACKOFF_MS, false);
        else {
          await this.cleanup(store);
          await this.sleep(this.config.outbox.pollMs, true);
        }
      }
    } finally {
      this.relaying = false;
    }
  }

  private async round(store: OutboxStore): Promise<RoundOutcome> {
    const rows = await store.pending(this.config.outbox.batchSize);
    if (rows.length === 0) return 'idle';
    for (const wave of waves(rows)) {
      const results = await Promise.allSettled(wave.map((row) => this.publish(row)));
      const confirmed = wave.filter((_, index) => results[index].status === 'fulfilled').map((row) => row.seq);
      if (confirmed.length > 0) await store.markSent(confirmed);
      if (confirmed.length < wave.length) {
        if (!this.failing) {
          const reason = results.find((result) => result.status === 'rejected') as PromiseRejectedResult;
          this.logger.warn(
            `publishing events failed (${(reason.reason as Error)?.message}); they wait in the outbox and are retried`,
          );
        }
        this.failing = true;
        return 'failed';
      }
    }
    if (this.failing) this.logger.log('publishing events works again');
    this.failing = false;
    return rows.length >= this.config.outbox.batchSize ? 'more' : 'idle';
  }

  /**
   * Publishes one event. With tracing on, an event written in a trace is published in a PRODUCER span, the child of
   * the request that wrote it, which the fan-out's CONSUMER span continues (the span's `traceparent` is the message's
   * header); it ends with the broker's confirm. With tracing off the stored `traceparent`, if any, goes on as it is.
   */
  private publish(row: OutboxRow): Promise<void> {
    const span =
      row.traceparent === null
        ? undefined
        : startPublishSpan(
            { exchange: EXCHANGES.events, routingKey: row.type, messageId: row.id },
            { [TRACEPARENT_HEADER]: row.traceparent },
          );
    const traceparent = span ? traceparentOf(span) : row.traceparent;
    const publishing = publishPlatformEvent(
      this.amqp,
      {
        type: row.type as PlatformEventType,
        category: row.category,
        merchantId: row.merchantId,
        integrationId: row.integrationId,
      },
      Buffer.from(withPosition(row.payload, row.seq), 'utf8'),
      {
        messageId: row.id,
        type: row.type,
        ...(traceparent === null ? {} : { headers: { [TRACEPARENT_HEADER]: traceparent } }),
      },
    );
    return span ? endPublishSpan(span, publishing) : publishing;
  }

  private async cleanup(store: OutboxStore): Promise<void> {
    if (Date.now() - this.lastCleanup < CLEANUP_EVERY_MS) return;
    this.lastCleanup = Date.now();
    const deleted = await store.deleteSentBefore(new Date(Date.now() - this.config.outbox.retentionMs));
    if (deleted > 0) this.logger.log(`deleted ${deleted} published events older than the retention`);
  }

  /** Waits `ms`; with `wakeable`, returns early on {@link wake} (at once if a wake came since the round began). */
  private sleep(ms: number, wakeable: boolean): Promise<void> {
    if (this.stopped || (wakeable && this.wakePending)) return Promise.resolve();
    return new Promise((resolve) => {
      const finish = () => {
        clearTimeout(timer);
        if (this.wakeSleeper === onWake) this.wakeSleeper = undefined;
        resolve();
      };
      const timer = setTimeout(finish, ms);
      // A stop always ends the wait; a wake only a wakeable one.
      const onWake = () => {
        if (wakeable || this.stopped) finish();
      };
      this.wakeSleeper = onWake;
    });
  }
}

/**
 * Splits rows (in seq order) into waves with at most one row per subject: a subject's n-th row goes to wave n.
 * Publishing wave after wave keeps every subject's events in order.
 */
export function waves(rows: OutboxRow[]): OutboxRow[][] {
  const result: OutboxRow[][] = [];
  const depth = new Map<string, number>();
  for (const row of rows) {
    const level = depth.get(row.subjectId) ?? 0;
    depth.set(row.subjectId, level + 1);
    (result[level] ??= []).push(row);
  }
  return result;
}
