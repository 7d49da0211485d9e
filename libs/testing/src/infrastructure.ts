import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { dropDatabase, ensureDatabase, migrate } from '#persistence';
import { rabbitmqctl as localRabbitmqctl, testEnv } from './test-env.js';

/**
 * Where a test run's PostgreSQL and RabbitMQ come from, in order:
 *  1. TEST_DATABASE_URL / TEST_AMQP_URL, when set (a server to create the run's database and vhost on);
 *  2. the local services on 127.0.0.1:5432 and :5672;
 *  3. containers started by testcontainers, when a Docker engine answers;
 *  otherwise the run fails with a message that says what to do.
 * Every run gets its own database (created, migrated, dropped after) and its own vhost. The migration also creates
 * the apps' database roles (transaction_api, webhook_config, webhook_dispatcher) when the server has none yet: roles
 * belong to the server, so every run shares them and none drops them. The apps under test connect with the run's
 * URL and take their role at connection start, so TEST_DATABASE_URL's login must be a superuser (or a member of
 * the three roles with CREATEROLE, if they do not exist yet).
 */
export interface TestInfrastructure {
  databaseUrl: string;
  amqpUrl: string;
  /** Runs `rabbitmqctl` against the broker serving this run (for restart tests). */
  rabbitmqctl: (...args: string[]) => Promise<string>;
  teardown: () => Promise<void>;
}

const LOCAL_DATABASE = 'postgres://postgres@127.0.0.1:5432/postgres';
const LOCAL_AMQP = 'amqp://guest:guest@127.0.0.1:5672';

function reachable(url: string, defaultPort: number): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port || defaultPort) });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1_000, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

function withVhost(url: string, vhost: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${encodeURIComponent(vhost)}`;
  return parsed.toString();
}

/** Creates the database named in `url` and migrates it; returns what drops it. */
export async function createMigratedDatabase(url: string): Promise<() => Promise<void>> {
  await ensureDatabase(url);
  const drop = () => dropDatabase(url);
  try {
    await migrate(url);
  } catch (error) {
    await drop().catch(() => undefined);
    throw error;
  }
  return drop;
}

/**
 * Creates `vhost` on the broker of `serverAmqpUrl` (its login gets every permission there); returns the URL of the
 * new vhost and what deletes it (with every queue, exchange and message in it).
 */
export async function createVhost(
  serverAmqpUrl: string,
  vhost: string,
  rabbitmqctl: (...args: string[]) => Promise<string> = localRabbitmqctl,
): Promise<{ amqpUrl: string; remove: () => Promise<void> }> {
  const user = decodeURIComponent(new URL(serverAmqpUrl).username || 'guest');
  await rabbitmqctl('add_vhost', vhost);
  const remove = async () => {
    await rabbitmqctl('delete_vhost', vhost);
  };
  try {
    await rabbitmqctl('set_permissions', '-p', vhost, user, '.*', '.*', '.*');
  } catch (error) {
    await remove().catch(() => undefined);
    throw error;
  }
  return { amqpUrl: withVhost(serverAmqpUrl, vhost), remove };
}

function dockerAvailable(): boolean {
  return existsSync('/var/run/docker.sock') || Boolean(process.env.DOCKER_HOST);
}

export async function provisionTestInfrastructure(): Promise<TestInfrastructure> {
  const runId = `${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const databaseName = `payments_test_${runId}`;
  const vhost = `test-${runId}`;
  const cleanups: Array<() => Promise<unknown>> = [];

  let serverDatabaseUrl = process.env.TEST_DATABASE_URL?.trim();
  let serverAmqpUrl = process.env.TEST_AMQP_URL?.trim();
  let rabbitmqctl: (...args: string[]) => Promise<string> = localRabbitmqctl;
  let makeVhost = true;

  if (serverAmqpUrl) {
    // A given broker is used with the vhost in its URL unless rabbitmqctl can reach it to make our own.
    makeVhost = process.env.TEST_AMQP_CREATE_VHOST === 'true';
  }

  if (!serverDatabaseUrl || !serverAmqpUrl) {
    const localPg = !serverDatabaseUrl && (await reachable(LOCAL_DATABASE, 5432));
    const localMq = !serverAmqpUrl && (await reachable(LOCAL_AMQP, 5672));
    if (localPg) serverDatabaseUrl = LOCAL_DATABASE;
    if (localMq) serverAmqpUrl = LOCAL_AMQP;
  }

  if (!serverDatabaseUrl || !serverAmqpUrl) {
    if (!dockerAvailable()) {
      throw new Error(
        [
          'Tests need a real PostgreSQL and RabbitMQ, and none was found:',
          `  PostgreSQL: ${serverDatabaseUrl ? 'ok' : 'set TEST_DATABASE_URL, or start one on 127.0.0.1:5432 (pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start)'}`,
          `  RabbitMQ:   ${serverAmqpUrl ? 'ok' : 'set TEST_AMQP_URL, or start one on 127.0.0.1:5672 (rabbitmq-server -detached)'}`,
          '  or run a Docker engine so testcontainers can start them.',
        ].join('\n'),
      );
    }
    const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
    const { RabbitMQContainer } = await import('@testcontainers/rabbitmq');
    if (!serverDatabaseUrl) {
      const container = await new PostgreSqlContainer('postgres:16-alpine').start();
      cleanups.push(() => container.stop());
      serverDatabaseUrl = withDatabase(container.getConnectionUri(), 'postgres');
    }
    if (!serverAmqpUrl) {
      const container = await new RabbitMQContainer('rabbitmq:3.13-alpine').start();
      cleanups.push(() => container.stop());
      serverAmqpUrl = container.getAmqpUrl();
      rabbitmqctl = async (...args) => (await container.exec(['rabbitmqctl', ...args])).output;
    }
  }

  const teardown = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch((error) => console.warn(`teardown: ${error}`));
  };
  const databaseUrl = withDatabase(serverDatabaseUrl, databaseName);
  let amqpUrl = serverAmqpUrl;
  try {
    cleanups.push(await createMigratedDatabase(databaseUrl));
    if (makeVhost) {
      const created = await createVhost(serverAmqpUrl, vhost, rabbitmqctl);
      cleanups.push(created.remove);
      amqpUrl = created.amqpUrl;
    }
  } catch (error) {
    // A failed setup gets no global teardown: leave no database (or container) behind.
    await teardown();
    throw error;
  }

  return { databaseUrl, amqpUrl, rabbitmqctl, teardown };
}

/** A spec's own database and vhost (see provisionOwnInfrastructure). */
export interface OwnInfrastructure {
  databaseUrl: string;
  amqpUrl: string;
  /** Drops the database and deletes the vhost: close every connection, pool and client of them first. */
  teardown: () => Promise<void>;
}

/**
 * A migrated database and a RabbitMQ vhost of a spec's own, on the servers of the run's (named after them and
 * `name`), for a spec that leaves what other suites must not see: messages on the topology's queues (which a later
 * suite's dispatcher would consume), webhooks, deliveries, recovers or schedule rows that other suites' jobs would
 * pick up. Everything in them goes with `teardown()`, in the spec's afterAll. The vhost is made with the local
 * rabbitmqctl, as the run's is (see provisionTestInfrastructure).
 */
export async function provisionOwnInfrastructure(name: string): Promise<OwnInfrastructure> {
  const run = testEnv();
  const suffix = `${name.toLowerCase().replace(/[^a-z0-9]+/g, '_')}_${randomBytes(2).toString('hex')}`;
  const runDatabase = decodeURIComponent(new URL(run.databaseUrl).pathname.slice(1));
  const databaseUrl = withDatabase(run.databaseUrl, `${runDatabase}_${suffix}`.slice(-63));
  const runVhost = decodeURIComponent(new URL(run.amqpUrl).pathname.slice(1)) || 'test';
  const dropDatabase = await createMigratedDatabase(databaseUrl);
  let vhost: Awaited<ReturnType<typeof createVhost>>;
  try {
    vhost = await createVhost(run.amqpUrl, `${runVhost}-${suffix}`);
  } catch (error) {
    await dropDatabase().catch(() => undefined);
    throw error;
  }
  return {
    databaseUrl,
    amqpUrl: vhost.amqpUrl,
    teardown: async () => {
      const results = await Promise.allSettled([vhost.remove(), dropDatabase()]);
      const failed = results.find((result) => result.status === 'rejected');
      if (failed) throw (failed as PromiseRejectedResult).reason;
    },
  };
}
