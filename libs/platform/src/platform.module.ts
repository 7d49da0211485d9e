import { DynamicModule, Module, Type } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { MessagingModule, type TopologyOptions } from '#messaging';
import { dataSourceOptions } from '#persistence';
import type { BaseConfig } from './config/base.config.js';
import { HealthModule } from './health/health.module.js';

export interface PlatformModuleOptions {
  /** The app's name: PostgreSQL application_name and RabbitMQ connection name. */
  name: string;
  base: BaseConfig;
  entities: Type[];
  /** Delay queues this app declares (only the dispatcher needs them). */
  topology?: TopologyOptions;
  poolSize?: number;
}

/** What every app has: PostgreSQL through TypeORM, the RabbitMQ client, and /health/live + /health/ready. */
@Module({})
export class PlatformModule {
  static forRoot(options: PlatformModuleOptions): DynamicModule {
    return {
      module: PlatformModule,
      imports: [
        TypeOrmModule.forRoot({
          ...dataSourceOptions({
            url: options.base.databaseUrl,
            entities: options.entities,
            poolSize: options.poolSize,
            applicationName: options.name,
            statementTimeoutMs: options.base.databaseStatementTimeoutMs,
          }),
          retryAttempts: 20,
          retryDelay: 1_000,
        }),
        MessagingModule.forRoot({
          url: options.base.amqpUrl,
          name: options.name,
          topology: options.topology ?? { retryDelaysMs: [] },
        }),
        HealthModule,
      ],
      exports: [TypeOrmModule, MessagingModule],
    };
  }
}
