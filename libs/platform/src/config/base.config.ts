import { DEFAULT_AMQP_URL } from '#messaging';
import { DATABASE_URL_PROTOCOLS, DEFAULT_DATABASE_URL } from '#persistence';
import { LOG_FORMATS, LOG_LEVELS, type LogFormat, type LogLevelName } from '../logging/app-logger.js';
import { EnvReader } from './env.reader.js';

export const NODE_ENVS = ['development', 'test', 'production'] as const;

/**
 * The default wait before repeat 1..10 of a failed delivery with retryOnError. The dispatcher schedules with it;
 * webhook-config reads the same variable to tell merchants what "retry on error" means.
 */
export const DEFAULT_WEBHOOK_RETRY_DELAYS = '1m,15m,1h,2h,4h,24h,24h,24h,24h,24h';

/** Reads WEBHOOK_RETRY_DELAYS (1 to 10 durations) in milliseconds. */
export const readRetryDelays = (reader: EnvReader): number[] =>
  reader.durations('WEBHOOK_RETRY_DELAYS', { default: DEFAULT_WEBHOOK_RETRY_DELAYS, minCount: 1, maxCount: 10 });

const DAY_MS = 86_400_000;

/** How long deliveries and their log are kept by default (WEBHOOK_LOG_RETENTION). */
export const DEFAULT_WEBHOOK_LOG_RETENTION_MS = 30 * DAY_MS;

/**
 * Reads WEBHOOK_LOG_RETENTION (a duration: `30d`, `720h`, …): deliveries and log entries older than this are removed,
 * a whole day at a time. It must exceed the retry schedule's span (`retryDelaysMs` added up), so that no repeat ever
 * finds its delivery removed. The dispatcher removes them; webhook-config tells merchants how long the log is kept.
 */
export function readLogRetention(reader: EnvReader, retryDelaysMs: readonly number[]): number {
  const retention = reader.duration('WEBHOOK_LOG_RETENTION', {
    default: DEFAULT_WEBHOOK_LOG_RETENTION_MS,
    min: 1,
    max: 3_650 * DAY_MS,
  });
  const span = retryDelaysMs.reduce((sum, ms) => sum + ms, 0);
  if (retention <= span) {
    reader.refuse(
      'WEBHOOK_LOG_RETENTION',
      `must exceed the retry schedule's span (WEBHOOK_RETRY_DELAYS add up to ${span} ms), ` +
        'or a repeat could find its delivery removed',
    );
  }
  return retention;
}

export type NodeEnv = (typeof NODE_ENVS)[number];

/** DATABASE_READ_URL and DATABASE_READ_MAX_LAG: the streaming replica of the reads that may be a moment old. */
export interface DatabaseReplicaConfig {
  url: string;
  /** Further behind than this (as the replica measures it), those reads go to the primary until it has caught up. */
  maxLagMs: number;
}

/** Settings every app shares, from the environment (README, Configuration). */
export interface BaseConfig {
  nodeEnv: NodeEnv;
  /** development and test allow the documented development defaults; production requires every secret. */
  isDevelopment: boolean;
  databaseUrl: string;
  /**
   * DATABASE_READ_URL: a streaming replica of DATABASE_URL's database for the merchant read API and the webhook log
   * (docs/scaling.md, Read replica); undefined (unset): every read on DATABASE_URL, no second pool.
   */
  databaseReplica: DatabaseReplicaConfig | undefined;
  /** AMQP_URL: the broker, or the nodes of one RabbitMQ cluster (comma-separated); apps connect to any and fail over. */
  amqpUrls: string[];
  /** DATABASE_STATEMENT_TIMEOUT: PostgreSQL cancels a statement still running after this long (0: the server's own setting). */
  databaseStatementTimeoutMs: number;
  logLevel: LogLevelName;
  /** LOG_FORMAT: `json` (one object per line) by default in production, `pretty` (readable lines) otherwise. */
  logFormat: LogFormat;
  /** OTEL_EXPORTER_OTLP_ENDPOINT: the OTLP/HTTP collector's base URL spans are exported to; unset: no tracing. */
  otlpEndpoint: string | undefined;
  /** SHUTDOWN_DRAIN_MS: how long an HTTP app's connections may drain at shutdown (HttpAppOptions.shutdownDrainMs). */
  shutdownDrainMs: number;
}

/** Creates the reader for one app and reads the shared part of its configuration. */
export function readBaseConfig(env: NodeJS.ProcessEnv): { reader: EnvReader; base: BaseConfig } {
  const probe = new EnvReader(env, false);
  const nodeEnv = probe.oneOf('NODE_ENV', NODE_ENVS, 'production');
  probe.done();
  const isDevelopment = nodeEnv !== 'production';
  const reader = new EnvReader(env, isDevelopment);
  const databaseReadUrl = reader.url('DATABASE_READ_URL', DATABASE_URL_PROTOCOLS, { default: '' });
  const databaseReadMaxLagMs = reader.duration('DATABASE_READ_MAX_LAG', { default: 10_000, min: 100, max: 3_600_000 });
  const base: BaseConfig = {
    nodeEnv,
    isDevelopment,
    databaseUrl: reader.url('DATABASE_URL', DATABASE_URL_PROTOCOLS, { default: DEFAULT_DATABASE_URL }),
    databaseReplica: databaseReadUrl ? { url: databaseReadUrl, maxLagMs: databaseReadMaxLagMs } : undefined,
    amqpUrls: reader.urls('AMQP_URL', ['amqp:', 'amqps:'], { default: DEFAULT_AMQP_URL }),
    databaseStatementTimeoutMs: reader.duration('DATABASE_STATEMENT_TIMEOUT', { default: 10_000, min: 0 }),
    logLevel: reader.oneOf('LOG_LEVEL', LOG_LEVELS, 'info'),
    logFormat: reader.oneOf('LOG_FORMAT', LOG_FORMATS, isDevelopment ? 'pretty' : 'json'),
    otlpEndpoint: reader.url('OTEL_EXPORTER_OTLP_ENDPOINT', ['http:', 'https:'], { default: '' }) || undefined,
    shutdownDrainMs: reader.duration('SHUTDOWN_DRAIN_MS', { default: 5_000, min: 0, max: 60_000 }),
  };
  return { reader, base };
}
