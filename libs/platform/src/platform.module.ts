import { DynamicModule, Module, Type } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { MessagingModule, type TopologyOptions } from '#messaging';
import { dataSourceOptions, type AppDatabaseRole } from '#persistence';
import type { BaseConfig } from './config/base.config.js';
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
}

/**
 * What every app has: PostgreSQL through TypeORM, the RabbitMQ client, /health/live + /health/ready and /metrics.
 */
@Module({})
export class PlatformModule {
  static forRoot(options: PlatformModuleOptions): DynamicModule {
    const database = dataSourceOptions({
      url: options.base.databaseUrl,
      entities: options.entities,
      poolSize: options.poolSize,
      applicationName: options.name,
      statementTimeoutMs: options.base.databaseStatementTimeoutMs,
      ...options.database,
    });
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
      ],
      exports: [TypeOrmModule, MessagingModule],
    };
  }
}
