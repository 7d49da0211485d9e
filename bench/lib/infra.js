// Shared set-up for the benchmarks: a dedicated database and vhost per benchmark (never the dev data),
// child processes for the apps, and small statistics helpers. Loopback only; every loop is bounded.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, globSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dropDatabase, ensureDatabase, migrate } from '../../dist/libs/persistence/src/index.js';
import { APP_NODE_FLAGS } from '../../scripts/node-flags.js';

export const BENCH_KEY = Buffer.alloc(32, 'bench-only-key').toString('base64');

const RABBITMQ_BIN = '/usr/lib/rabbitmq/bin';
const SHIPPED_BROKER_SETTINGS = new URL('../../deploy/rabbitmq/', import.meta.url);

/**
 * The RabbitMQ a benchmark runs against.
 * - BENCH_BROKER=dedicated (the default where RabbitMQ is installed on this machine): a node of its own, started
 *   from this machine's RabbitMQ installation on a free loopback port with the settings the platform ships
 *   (deploy/rabbitmq/*.conf, as docker-compose.yml mounts them), holding nothing but the benchmark's queues, and
 *   stopped (its files deleted) afterwards — the broker as deployed.
 * - BENCH_BROKER=system: the machine's running broker on 127.0.0.1:5672, as it is configured.
 */
export async function startBroker() {
  const dedicated =
    (process.env.BENCH_BROKER ?? 'dedicated') === 'dedicated' && existsSync(`${RABBITMQ_BIN}/rabbitmq-server`);
  if (!dedicated) {
    return {
      kind: 'system',
      url: 'amqp://guest:guest@127.0.0.1:5672',
      ctl: (args, options = {}) => execFileSync('rabbitmqctl', args, { encoding: 'utf8', ...options }),
      walGlob: '/var/lib/rabbitmq/mnesia/*/quorum/*/*.wal',
      stop: () => undefined,
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'bench-rabbitmq-'));
  const [port, distPort] = [await freePort(), await freePort()];
  const settings = readdirSync(SHIPPED_BROKER_SETTINGS)
    .filter((file) => file.endsWith('.conf'))
    .sort()
    .map((file) => readFileSync(new URL(file, SHIPPED_BROKER_SETTINGS), 'utf8'));
  writeFileSync(join(dir, 'rabbitmq.conf'), [`listeners.tcp.default = 127.0.0.1:${port}`, ...settings].join('\n'));
  writeFileSync(join(dir, 'enabled_plugins'), '[].\n');
  const node = `bench-${process.pid}@localhost`;
  const env = {
    ...process.env,
    HOME: dir, // its own Erlang cookie
    RABBITMQ_NODENAME: node,
    RABBITMQ_NODE_PORT: String(port),
    RABBITMQ_DIST_PORT: String(distPort),
    RABBITMQ_CONFIG_FILE: join(dir, 'rabbitmq.conf'),
    RABBITMQ_ENABLED_PLUGINS_FILE: join(dir, 'enabled_plugins'),
    RABBITMQ_MNESIA_BASE: join(dir, 'mnesia'),
    RABBITMQ_LOG_BASE: join(dir, 'log'),
    RABBITMQ_PID_FILE: join(dir, 'pid'),
  };
  const ctl = (args, options = {}) =>
    execFileSync(`${RABBITMQ_BIN}/rabbitmqctl`, ['-n', node, ...args], { encoding: 'utf8', env, ...options });
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    try {
      ctl(['stop'], { stdio: 'ignore', timeout: 60_000 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  process.once('exit', stop); // also when the benchmark fails half-way
  execFileSync(`${RABBITMQ_BIN}/rabbitmq-server`, ['-detached'], { env, stdio: 'ignore' });
  ctl(['wait', join(dir, 'pid'), '--timeout', '120'], { stdio: 'ignore' });
  return {
    kind: 'dedicated',
    url: `amqp://guest:guest@127.0.0.1:${port}`,
    ctl,
    walGlob: `${dir}/mnesia/*/quorum/*/*.wal`,
    stop,
  };
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** A dedicated database and, on the benchmark's broker, a vhost; `cleanup()` removes both and stops the broker. */
export async function freshInfrastructure(name) {
  const databaseUrl = `postgres://postgres@127.0.0.1:5432/bench_${name}`;
  await dropDatabase(databaseUrl);
  await ensureDatabase(databaseUrl);
  await migrate(databaseUrl);
  const broker = await startBroker();
  const vhost = `bench-${name}`;
  try {
    broker.ctl(['delete_vhost', vhost], { stdio: 'ignore' });
  } catch {
    // did not exist
  }
  broker.ctl(['add_vhost', vhost], { stdio: 'ignore' });
  broker.ctl(['set_permissions', '-p', vhost, 'guest', '.*', '.*', '.*'], { stdio: 'ignore' });
  return {
    databaseUrl,
    amqpUrl: `${broker.url}/${vhost}`,
    broker: broker.kind,
    watchBrokerWal: () => watchBrokerWal(broker),
    cleanup: async () => {
      await dropDatabase(databaseUrl);
      broker.ctl(['delete_vhost', vhost], { stdio: 'ignore' });
      broker.stop();
    },
  };
}

// Started as `npm start` and the deployment files start them (same node flags).
export function startApp(app, env) {
  // BENCH_PROFILE=<app> writes a V8 CPU profile of that app to bench/results/profiles/.
  const profile = process.env.BENCH_PROFILE === app ? ['--cpu-prof', '--cpu-prof-dir=bench/results/profiles'] : [];
  // BENCH_APP_NODE_ARGS: more node flags for every app (e.g. --trace-gc), to study one run.
  const extra = process.env.BENCH_APP_NODE_ARGS ? process.env.BENCH_APP_NODE_ARGS.split(' ') : [];
  const child = spawn(process.execPath, [...APP_NODE_FLAGS, ...extra, ...profile, `dist/apps/${app}/src/main.js`], {
    env: { ...process.env, NODE_ENV: 'production', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  return child;
}

export async function waitReady(url, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${url} not ready after ${timeoutMs} ms`);
}

export function stopChild(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', resolve);
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 15_000).unref();
  });
}

export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export const round = (n, digits = 1) => Number(n.toFixed(digits));

/**
 * Watches the local RabbitMQ's quorum-queue write-ahead log: its size limit (`raft.wal_max_size_bytes`) and the
 * moments it rolls over to a new file, when RabbitMQ writes what the full one held into per-queue segments — on
 * this 2-core host a stall of a few hundred milliseconds with the default 512 MiB. `stop()` returns the rollover
 * times (performance.now()). Without access to the broker's files it reports nothing.
 */
function watchBrokerWal(broker) {
  let maxBytes = null;
  try {
    const out = broker.ctl(['eval', 'application:get_env(ra, wal_max_size_bytes).'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    maxBytes = Number(/\{ok,(\d+)\}/.exec(out)?.[1]) || null;
  } catch {
    // no rabbitmqctl here
  }
  const walFiles = () => {
    try {
      return globSync(broker.walGlob);
    } catch {
      return [];
    }
  };
  // A rollover is a new WAL file appearing (the old one disappears a little later: not counted again).
  const rollovers = [];
  const seen = new Set(walFiles());
  const timer = setInterval(() => {
    for (const file of walFiles()) {
      if (seen.has(file)) continue;
      seen.add(file);
      if (seen.size > 1) rollovers.push(performance.now());
    }
  }, 250);
  timer.unref();
  return {
    maxBytes,
    stop() {
      clearInterval(timer);
      return rollovers;
    },
  };
}
