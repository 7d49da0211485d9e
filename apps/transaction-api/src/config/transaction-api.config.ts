import { BaseConfig, readBaseConfig } from '#platform';

export const DEV_PLATFORM_TOKEN = 'development-platform-token';

/** How the outbox relay runs (tunable for tests and benchmarks; the defaults suit production). */
export interface OutboxSettings {
  /** Longest wait between two looks at the outbox when no NOTIFY arrives (also: retry of the relay lock). */
  pollMs: number;
  /** Events read and published per round. */
  batchSize: number;
  /** Published events older than this are deleted from the outbox. */
  retentionMs: number;
}

/** transaction-api settings from the environment (README, Configuration), read and validated once at start. */
export class TransactionApiConfig {
  constructor(
    readonly base: BaseConfig,
    readonly port: number,
    /** Bearer token of the platform (internal) API. */
    readonly platformToken: string,
    readonly outbox: OutboxSettings,
    /**
     * Connections in the PostgreSQL pool. 10 by default: PostgreSQL does its best with a few busy backends per core,
     * and more only contend (locks, WAL insertion, context switches). On the 2-core benchmark host 10 connections
     * recorded 1,966-2,125 operations/s where 20 recorded 1,775-1,825 (PostgreSQL CPU per operation -18 %), reads
     * rose as well, and 6 were too few for 32 clients.
     */
    readonly databasePoolSize: number,
    /** Merchant read API requests per second per API key, summed over every process (and wrong keys per address). */
    readonly apiRateLimit: number,
    /** Reverse proxies whose X-Forwarded-For names the client (the address wrong keys are limited by). */
    readonly trustProxy: false | string[],
  ) {}
}

export function loadTransactionApiConfig(env: NodeJS.ProcessEnv): TransactionApiConfig {
  const { reader, base } = readBaseConfig(env);
  const config = new TransactionApiConfig(
    base,
    reader.port('TRANSACTION_API_PORT', 3000),
    reader.secret('PLATFORM_TOKEN', { devDefault: DEV_PLATFORM_TOKEN, minLength: 16 }),
    {
      pollMs: reader.duration('OUTBOX_POLL_MS', { default: 1_000, min: 10 }),
      batchSize: reader.int('OUTBOX_BATCH_SIZE', { default: 500, min: 1, max: 5_000 }),
      retentionMs: reader.duration('OUTBOX_RETENTION', { default: 7 * 24 * 3_600_000, min: 60_000 }),
    },
    reader.int('DATABASE_POOL_SIZE', { default: 10, min: 2, max: 200 }),
    reader.int('API_RATE_LIMIT', { default: 100, min: 1 }),
    reader.proxyTrust('TRUST_PROXY'),
  );
  reader.done();
  return config;
}
