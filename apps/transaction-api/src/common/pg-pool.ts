import { Provider } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import type pg from 'pg';
import type { DataSource } from 'typeorm';

/**
 * The pg pool under TypeORM's data source, for the hot read paths: named (prepared) statements, no query builder.
 * Writes go through TypeORM transactions (see UnitOfWork).
 */
export const PG_POOL = Symbol('PG_POOL');

export const pgPoolProvider: Provider = {
  provide: PG_POOL,
  inject: [getDataSourceToken()],
  useFactory: (dataSource: DataSource) => (dataSource.driver as unknown as { master: pg.Pool }).master,
};
