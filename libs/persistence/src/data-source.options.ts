import type { DataSourceOptions, MixedList, EntitySchema } from 'typeorm';
import { MIGRATIONS } from './migrations/index.js';

export interface DatabaseOptions {
  url: string;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  entities?: MixedList<Function | string | EntitySchema>;
  /** Connections in this process's pool. */
  poolSize?: number;
  applicationName?: string;
}

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
    logging: ['error', 'warn', 'migration'],
    applicationName: options.applicationName,
    // TCP keepalive probes after 10 s without traffic (interval and count are the OS's: minutes in all): a query
    // waiting for the answer of a server that a failover or a network device cut off silently fails then, instead of
    // waiting forever. (Idle pooled connections are closed after 10 s anyway.)
    extra: {
      max: options.poolSize ?? 10,
      connectionTimeoutMillis: 5_000,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
    },
  };
}
