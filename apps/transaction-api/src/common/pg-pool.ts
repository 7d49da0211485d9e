import { Global, Inject, Logger, Module, type OnApplicationShutdown } from '@nestjs/common';
import pg from 'pg';
import { pgPoolConfig, TRANSACTION_API_DATABASE } from '#persistence';
import { ReadReplicaModule } from '#platform';
import { TransactionApiConfig } from '../config/transaction-api.config.js';

/**
 * transaction-api's pg pool on the primary: every query of the app runs on it (but the merchant read API's while a
 * read replica serves them), with named (prepared) statements and no ORM; writes in one statement or in a
 * UnitOfWork. Its sessions take the app's role and schema, as pgPoolConfig sets them.
 */
export const PG_POOL = Symbol('PG_POOL');

const logger = new Logger('PgPool');

/** A pool of the app's sessions (role, search_path, timeouts) on the database at `url`. */
function sessionPool(config: TransactionApiConfig, url: string): pg.Pool {
  const pool = new pg.Pool(
    pgPoolConfig({
      url,
      poolSize: config.databasePoolSize,
      applicationName: 'transaction-api',
      statementTimeoutMs: config.base.databaseStatementTimeoutMs,
      ...TRANSACTION_API_DATABASE,
    }),
  );
  // An idle connection the server ended is dropped by the pool; without a listener it would end the process.
  pool.on('error', (error) => logger.warn(`idle database connection failed: ${error.message}`));
  return pool;
}

/**
 * PG_POOL, and the ReadReplica of the merchant read API: with DATABASE_READ_URL a second pool of the same sessions
 * on the replica (created at the first probe), which TransactionRepository's merchant reads use while it is up and
 * in time; unset, no second pool: every read runs on PG_POOL.
 */
@Global()
@Module({
  imports: [
    ReadReplicaModule.forRoot<pg.Pool>({
      inject: [TransactionApiConfig],
      useFactory: (config: TransactionApiConfig) => {
        const replica = config.base.databaseReplica;
        if (!replica) return undefined;
        return {
          maxLagMs: replica.maxLagMs,
          open: async () => sessionPool(config, replica.url),
          rows: async (pool, sql) => (await pool.query(sql)).rows,
          close: (pool) => pool.end(),
        };
      },
    }),
  ],
  providers: [
    {
      provide: PG_POOL,
      inject: [TransactionApiConfig],
      useFactory: (config: TransactionApiConfig) => sessionPool(config, config.base.databaseUrl),
    },
  ],
  exports: [PG_POOL],
})
export class PgPoolModule implements OnApplicationShutdown {
  constructor(@Inject(PG_POOL) private readonly pool: pg.Pool) {}

  async onApplicationShutdown(): Promise<void> {
    await this.pool.end();
  }
}
