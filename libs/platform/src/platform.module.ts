import { DynamicModule, Module, Type } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { MessagingModule, type TopologyOptions } from '#messaging';
import { dataSourceOptions, type AppDatabaseRole } from '#persistence';
import type { BaseConfig } from './config/base.config.js';
import { ReadReplicaModule, type ReplicaConnection } from './database/read-replica.module.js';
import { HealthModule } from './health/health.module.js';
import { TypeOrmLogger } from './logging/typeorm-logger.js';
import { MetricsModule } from './metrics/metrics.module.js';

export interface PlatformModuleOptions {
  /** The app's name: PostgreSQL application_name and RabbitMQ connection name. */
  name: string;
  /** The role its sessions take and its own schema: it writes that schema's tables, nothing else. */
  database: AppDatabaseRole;
  base: BaseConfig;
  entities: Type[];
  /** Delay queues this app declares (only the dispatcher needs them). */
  topology?: TopologyOptions;
  poolSize?: number;
  /**
   * The entities the app reads from the read replica (DATABASE_READ_URL), through a second data source with the same
   * settings that {@link ReadReplica} opens when it is set; omitted: the app provides its own ReadReplicaModule, or
   * none (no read of it may be stale).
   */
  replicaEntities?: Type[];
}

/** The data source options of the app's sessions on the database at `url` (the primary, or the replica). */
function sessionOptions(options: PlatformModuleOptions, url: string, entities: Type[]) {
  return dataSourceOptions({
    url,
    entities,
    poolSize: options.poolSize,
    applicationName: options.name,
    statementTimeoutMs: options.base.databaseStatementTimeoutMs,
    ...options.database,
  });
}

/** The app's replica as a TypeORM data source, initialised when first needed (a replica away at start is no error). */
function dataSourceReplica(options: PlatformModuleOptions, entities: Type[]): ReplicaConnection<DataSource> {
  const replica = options.base.databaseReplica;
  if (!replica) return undefined;
  const database = sessionOptions(options, replica.url, entities);
  return {
    maxLagMs: replica.maxLagMs,
    open: async () => {
      const dataSource = new DataSource({ ...database, logger: new TypeOrmLogger(database.logging) });
      await dataSource.initialize();
      return dataSource;
    },
    rows: (dataSource, sql) => dataSource.query(sql),
    close: (dataSource) => dataSource.destroy(),
  };
}

/**
 * What every app has: PostgreSQL through TypeORM, the RabbitMQ client, /health/live + /health/ready and /metrics.
 */
@Module({})
export class PlatformModule {
  static forRoot(options: PlatformModuleOptions): DynamicModule {
    const database = sessionOptions(options, options.base.databaseUrl, options.entities);
    const replicaEntities = options.replicaEntities;
    return {
      module: PlatformModule,
      imports: [
        TypeOrmModule.forRoot({
          ...database,
          logger: new TypeOrmLogger(database.logging),
          retryAttempts: 20,
          retryDelay: 1_000,
        }),
        MessagingModule.forRoot({
          url: options.base.amqpUrls,
          name: options.name,
          topology: options.topology ?? { retryDelaysMs: [] },
        }),
        HealthModule,
        MetricsModule,
        ...(replicaEntities
          ? [ReadReplicaModule.forRoot({ useFactory: () => dataSourceReplica(options, replicaEntities) })]
          : []),
      ],
      exports: [TypeOrmModule, MessagingModule],
    };
  }
}
