import type { TopologyOptions } from '#messaging';
import { randomInt } from 'node:crypto';
import { BaseConfig, readBaseConfig, readLogRetention, readRetryDelays } from '#platform';

/** Development only: the same fixed key webhook-config uses in development. */
export const DEV_SECRET_ENCRYPTION_KEY = Buffer.alloc(32, 'dev-only-key').toString('base64');

/** webhook-dispatcher settings from the environment (README, Configuration), read and validated once at start. */
export class WebhookDispatcherConfig {
  constructor(
    readonly base: BaseConfig,
    readonly port: number,
    readonly secretEncryptionKey: Buffer,
    /** A delivery with no complete response in this time is logged with HTTP status 0. */
    readonly timeoutMs: number,
    /** Wait before repeat 1..n (n ≤ 10). */
    readonly retryDelaysMs: number[],
    readonly allowPrivateTargets: boolean,
    /** Deliveries in flight per process (the delivery queue's prefetch). */
    readonly concurrency: number,
    /** Deliveries in flight per process for slow webhooks: the slow lane's prefetch, split over its shards. */
    readonly slowLaneConcurrency: number,
    /**
     * This process's priority as a consumer of the shared queues: the process with the highest priority gets the
     * messages while it has prefetch left, the others what it cannot take (see docs/webhook-dispatcher.md).
     */
    readonly consumerPriority: number,
    /**
     * WEBHOOK_LOG_RETENTION: deliveries and log entries older than this are removed, a whole day's partition at a
     * time (PartitionMaintenance). Longer than the retry schedule's span.
     */
    readonly logRetentionMs: number,
    /**
     * WEBHOOK_DISABLE_AFTER: a webhook whose attempts have all failed for this long (and at least 10 of them) is
     * reported to webhook-config to be disabled (WebhookHealthMonitor).
     */
    readonly disableAfterMs: number,
    /**
     * DISPATCHER_RECOVER_MAX_PER_SECOND: the recovers this process works on queue at most this many deliveries a
     * second together (RecoverJob): a recover of a million takes a share of the machine, not all of it, and other
     * webhooks keep their latency.
     */
    readonly recoverMaxPerSecond: number,
    /**
     * WEBHOOK_EGRESS_PROXY: deliveries leave through this forward proxy (http://host:port, perhaps with user info
     * for Proxy-Authorization — never log it whole); undefined: straight from this process.
     */
    readonly egressProxy?: string,
  ) {}

  /**
   * How long a stand-in waits for an attempt that outlived its message (DeliveryService): the attempt ends within
   * the timeout, and is logged a moment later.
   */
  get guardDelayMs(): number {
    return this.timeoutMs + 5_000;
  }

  /**
   * Recovered deliveries in flight per process (the recover lane's prefetch): each recover's job keeps at most a
   * window of them queued (RecoverJob), so this bounds how much of a process recovers take beside new deliveries.
   */
  readonly recoverConcurrency = 128;

  /** The delay queues this process declares and publishes to. */
  get topology(): TopologyOptions {
    return { retryDelaysMs: this.retryDelaysMs, guardDelayMs: this.guardDelayMs };
  }
}

export function loadWebhookDispatcherConfig(env: NodeJS.ProcessEnv): WebhookDispatcherConfig {
  const { reader, base } = readBaseConfig(env);
  const retryDelaysMs = readRetryDelays(reader);
  const config = new WebhookDispatcherConfig(
    base,
    reader.port('WEBHOOK_DISPATCHER_PORT', 3002),
    reader.base64Key('SECRET_ENCRYPTION_KEY', 32, { devDefault: DEV_SECRET_ENCRYPTION_KEY }),
    reader.duration('WEBHOOK_TIMEOUT_MS', { default: 20_000, min: 1, max: 600_000 }),
    retryDelaysMs,
    reader.bool('WEBHOOK_ALLOW_PRIVATE_TARGETS', false),
    reader.int('DISPATCHER_CONCURRENCY', { default: 500, min: 1, max: 5_000 }),
    reader.int('DISPATCHER_SLOW_LANE_CONCURRENCY', { default: 2_000, min: 8, max: 50_000 }),
    // Unset: a random one, so that of several processes one takes the load first.
    reader.int('DISPATCHER_CONSUMER_PRIORITY', { default: randomInt(1, 1_001), min: 0, max: 1_000 }),
    readLogRetention(reader, retryDelaysMs),
    reader.duration('WEBHOOK_DISABLE_AFTER', { default: 5 * 86_400_000, min: 1 }),
    reader.int('DISPATCHER_RECOVER_MAX_PER_SECOND', { default: 1_200, min: 1, max: 100_000 }),
    reader.forwardProxy('WEBHOOK_EGRESS_PROXY'),
  );
  reader.done();
  return config;
}
