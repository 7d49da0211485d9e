import { DynamicModule, Global, InjectionToken, Module } from '@nestjs/common';
import { PlatformMetrics } from '../metrics/platform.metrics.js';
import { ReadReplica, type ReadReplicaOptions } from './read-replica.js';

/** How an app reaches its replica, or undefined when DATABASE_READ_URL is unset (the registry is added here). */
export type ReplicaConnection<C> = Omit<ReadReplicaOptions<C>, 'registry'> | undefined;

/**
 * Provides the app's {@link ReadReplica} to every module, /health/ready included. `useFactory` (with `inject`)
 * says how the app connects to DATABASE_READ_URL: TypeORM apps through PlatformModule's `replicaEntities`,
 * transaction-api through its pg pool module.
 */
@Global()
@Module({})
export class ReadReplicaModule {
  static forRoot<C>(options: {
    inject?: InjectionToken[];
    useFactory: (...args: never[]) => ReplicaConnection<C>;
  }): DynamicModule {
    return {
      module: ReadReplicaModule,
      providers: [
        {
          provide: ReadReplica,
          inject: [PlatformMetrics, ...(options.inject ?? [])],
          useFactory: (metrics: PlatformMetrics, ...args: never[]) => {
            const connection = options.useFactory(...args);
            return new ReadReplica<C>(connection && { ...connection, registry: metrics.registry });
          },
        },
      ],
      exports: [ReadReplica],
    };
  }
}
