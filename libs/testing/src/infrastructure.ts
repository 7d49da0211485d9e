import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { dropDatabase, ensureDatabase, migrate } from '#persistence';
import { rabbitmqctl as localRabbitmqctl } from './test-env.js';

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
  let createVhost = true;

  if (serverAmqpUrl) {
    // A given broker is used with the vhost in its URL unless rabbitmqctl can reach it to make our own.
    createVhost = process.env.TEST_AMQP_CREATE_VHOST === 'true';
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

  const databaseUrl = withDatabase(serverDatabaseUrl, databaseName);
  await ensureDatabase(databaseUrl);
  cleanups.push(() => dropDatabase(databaseUrl));
  await migrate(databaseUrl);

  let amqpUrl = serverAmqpUrl;
  if (createVhost) {
    const user = decodeURIComponent(new URL(serverAmqpUrl).username || 'guest');
    await rabbitmqctl('add_vhost', vhost);
    await rabbitmqctl('set_permissions', '-p', vhost, user, '.*', '.*', '.*');
    cleanups.push(() => rabbitmqctl('delete_vhost', vhost));
    amqpUrl = withVhost(serverAmqpUrl, vhost);
  }

  return {
    databaseUrl,
    amqpUrl,
    rabbitmqctl,
    teardown: async () => {
      for (const cleanup of cleanups.reverse()) await cleanup().catch((error) => console.warn(`teardown: ${error}`));
    },
  };
}
