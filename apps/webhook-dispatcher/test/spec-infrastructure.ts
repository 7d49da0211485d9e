import { AmqpClient, type TopologyOptions } from '#messaging';
import { dataSourceOptions, WEBHOOK_DISPATCHER_DATABASE } from '#persistence';
import { type OwnInfrastructure, provisionOwnInfrastructure } from '#testing';
import pg from 'pg';
import { DataSource } from 'typeorm';

/** What a dispatcher service's medium spec runs on (see dispatcherSpecInfrastructure). */
export interface DispatcherSpecInfrastructure {
  own: OwnInfrastructure;
  /** The database as its owner: to seed rows and read them back. */
  admin: pg.Pool;
  /** The database as the dispatcher's role, for the services under test. */
  db: DataSource;
  /** A connection to the vhost with the dispatcher's topology (when asked for). */
  amqp?: AmqpClient;
  /** Closes the connections and drops the database and vhost: after the spec's own services are stopped. */
  close(): Promise<void>;
}

/** The same, with a RabbitMQ connection. */
export interface DispatcherSpecBroker extends DispatcherSpecInfrastructure {
  amqp: AmqpClient;
}

/**
 * A database and vhost of the spec's own (provisionOwnInfrastructure: nothing it leaves reaches the run's other
 * suites), an owner's pool, a data source as the dispatcher's role and, with `topology`, a RabbitMQ connection that
 * declares the dispatcher's queues.
 */
export async function dispatcherSpecInfrastructure(
  name: string,
  options: { poolSize?: number; topology: TopologyOptions },
): Promise<DispatcherSpecBroker>;
export async function dispatcherSpecInfrastructure(
  name: string,
  options?: { poolSize?: number },
): Promise<DispatcherSpecInfrastructure>;
export async function dispatcherSpecInfrastructure(
  name: string,
  { poolSize = 4, topology }: { poolSize?: number; topology?: TopologyOptions } = {},
): Promise<DispatcherSpecInfrastructure> {
  const own = await provisionOwnInfrastructure(name);
  const admin = new pg.Pool({ connectionString: own.databaseUrl, max: 2 });
  const db = await new DataSource(
    dataSourceOptions({ url: own.databaseUrl, poolSize, ...WEBHOOK_DISPATCHER_DATABASE }),
  ).initialize();
  const amqp = topology && new AmqpClient({ url: own.amqpUrl, name: `${name}-spec`, topology });
  await amqp?.waitForConnect();
  return {
    own,
    admin,
    db,
    amqp,
    async close() {
      await amqp?.close();
      await db.destroy();
      await admin.end();
      await own.teardown();
    },
  };
}
