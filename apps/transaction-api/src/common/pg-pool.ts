import { Global, Inject, Logger, Module, type OnApplicationShutdown } from '@nestjs/common';
import pg from 'pg';
import { pgPoolConfig, TRANSACTION_API_DATABASE } from '#persistence';
import { TransactionApiConfig } from '../config/transaction-api.config.js';

/**
 * transaction-api's pg pool: every query of the app runs on it, with named (prepared) statements and no ORM; writes in
 * one statement or in a UnitOfWork. Its sessions take the app's role and schema, as pgPoolConfig sets them.
 */
export const PG_POOL = Symbol('PG_POOL');

const logger = new Logger('PgPool');

@Global()
@Module({
  providers: [
    {
      provide: PG_POOL,
      inject: [TransactionApiConfig],
      useFactory: (config: TransactionApiConfig) => {
        const pool = new pg.Pool(
          pgPoolConfig({
            url: config.base.databaseUrl,
            poolSize: config.databasePoolSize,
            applicationName: 'transaction-api',
            statementTimeoutMs: config.base.databaseStatementTimeoutMs,
            ...TRANSACTION_API_DATABASE,
          }),
        );
        // An idle connection the server ended is dropped by the pool; without a listener it would end the process.
        pool.on('error', (error) => logger.warn(`idle database connection failed: ${error.message}`));
        return pool;
      },
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
