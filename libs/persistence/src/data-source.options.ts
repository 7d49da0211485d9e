import type pg from 'pg';
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
  /** The role the sessions take (`SET ROLE` at connection start): the login must be a member of it, or a superuser. */
  role?: string;
  /** The sessions' search_path: where names without a schema are looked up (the app's own schema). */
  schema?: string;
}

/**
 * The PostgreSQL role an app's sessions take and the schema of the tables it owns (migration AppSchemasAndRoles):
 * the role may write that schema's tables and read only the views other apps grant it.
 */
export interface AppDatabaseRole {
  role: string;
  schema: string;
}
export const TRANSACTION_API_DATABASE: AppDatabaseRole = { role: 'transaction_api', schema: 'payments' };
export const WEBHOOK_CONFIG_DATABASE: AppDatabaseRole = { role: 'webhook_config', schema: 'backend' };
export const WEBHOOK_DISPATCHER_DATABASE: AppDatabaseRole = { role: 'webhook_dispatcher', schema: 'delivery' };

/**
 * The connection string and start-up `options` of a session that takes `role` and searches `schema`. PostgreSQL
 * applies them as the session starts (no extra round trip), and refuses the connection when the login may not take
 * the role. pg would let an `options` parameter of the URL replace ours: it is moved ahead of ours instead.
 */
export function sessionConnection(
  url: string,
  session: { role?: string; schema?: string },
): { connectionString: string; options?: string } {
  const settings = [
    ...(session.role ? [`-c role=${session.role}`] : []),
    ...(session.schema ? [`-c search_path=${session.schema}`] : []),
  ];
  if (settings.length === 0) return { connectionString: url };
  const parsed = new URL(url);
  const own = parsed.searchParams.get('options');
  if (own === null) return { connectionString: url, options: settings.join(' ') };
  parsed.searchParams.delete('options');
  return { connectionString: parsed.toString(), options: [own, ...settings].join(' ') };
}

/** A transaction idle this long holds its locks for nobody: its session is ended (apps only). */
export const IDLE_IN_TRANSACTION_TIMEOUT_MS = 60_000;

/**
 * The pg pool settings of an app's sessions: what the TypeORM data source hands pg (dataSourceOptions), and what an
 * app that queries through pg directly creates its pool with.
 */
export function pgPoolConfig(options: DatabaseOptions): pg.PoolConfig {
  const session = sessionConnection(options.url, options);
  return {
    connectionString: session.connectionString,
    application_name: options.applicationName,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: 5_000,
    // TCP keepalive probes after 10 s without traffic (interval and count are the OS's: minutes in all): a query
    // waiting for the answer of a server that a failover or a network device cut off silently fails then, instead of
    // waiting forever. (Idle pooled connections are closed after 10 s anyway.)
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    ...(session.options === undefined ? {} : { options: session.options }),
    ...(options.statementTimeoutMs === undefined
      ? {}
      : {
          // Sent with the connection's start-up message: no extra round trip per connection or query.
          statement_timeout: options.statementTimeoutMs,
          idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_TIMEOUT_MS,
        }),
  };
}

/** TypeORM options for the platform's single PostgreSQL database. Schema changes only by migrations. */
export function dataSourceOptions(options: DatabaseOptions): DataSourceOptions {
  const { connectionString, application_name: applicationName, ...extra } = pgPoolConfig(options);
  return {
    type: 'postgres',
    url: connectionString,
    entities: options.entities ?? [],
    migrations: MIGRATIONS,
    migrationsTableName: 'migrations',
    migrationsTransactionMode: 'each',
    synchronize: false,
    // Not 'error': TypeORM would print every failed statement with its parameters (webhook URLs with tokens,
    // payloads, response excerpts) raw to stdout. The code that ran it reports the failure (without them).
    logging: ['warn', 'migration'],
    applicationName,
    extra,
  };
}
