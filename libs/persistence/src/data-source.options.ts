import type { DataSourceOptions, MixedList, EntitySchema } from 'typeorm';
import { MIGRATIONS } from './migrations/index.js';

export interface DatabaseOptions {
  url: string;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  entities?: MixedList<Function | string | EntitySchema>;
  /** Connections in this process's pool. */
  poolSize?: number;
  applicationName?: string;
  /**
   * The apps' sessions: a statement still running after this many milliseconds is cancelled by PostgreSQL (SQLSTATE
   * 57014, answered 503 by the APIs, waited out by the dispatcher), and a transaction left idle for a minute is
   * ended. Unset (migrations): no limit, since building an index on a large table may take long.
   */
  statementTimeoutMs?: number;
}

/** A transaction idle this long holds its locks for nobody: its session is ended (apps only). */
export const IDLE_IN_TRANSACTION_TIMEOUT_MS = 60_000;

/** TypeORM options for the platform's single PostgreSQL database. Schema changes only by migrations. */
export function dataSourceOptions(options: DatabaseOptions): DataSourceOptions {
  return {
    type: 'postgres',
    url: options.url,
    entities: options.entities ?? [],
    migrations: MIGRATIONS,
    migrationsTableName: 'migrations',
    migrationsTransactionMode: 'each',
    synchronize: false,
    // Not 'error': TypeORM would print every failed statement with its parameters (webhook URLs with tokens,
    // payloads, response excerpts) raw to stdout. The code that ran it reports the failure (without them).
    logging: ['warn', 'migration'],
    applicationName: options.applicationName,
    // TCP keepalive probes after 10 s without traffic (interval and count are the OS's: minutes in all): a query
    // waiting for the answer of a server that a failover or a network device cut off silently fails then, instead of
    // waiting forever. (Idle pooled connections are closed after 10 s anyway.)
    extra: {
      max: options.poolSize ?? 10,
      connectionTimeoutMillis: 5_000,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      ...(options.statementTimeoutMs === undefined
        ? {}
        : {
            // Sent with the connection's start-up message: no extra round trip per connection or query.
            statement_timeout: options.statementTimeoutMs,
            idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_TIMEOUT_MS,
          }),
    },
  };
}
