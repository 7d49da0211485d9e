// Shared set-up for the benchmarks: a dedicated database and, on a RabbitMQ node of the benchmark's own, a vhost per
// benchmark (never the dev data), child processes for the apps, and small statistics helpers. Loopback only; every
// loop is bounded.
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, globSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dropDatabase, ensureDatabase, migrate } from '../../dist/libs/persistence/src/index.js';
import { APP_NODE_FLAGS } from '../../scripts/node-flags.js';
import { postgresPidsOf } from './cpu.js';

export const BENCH_KEY = Buffer.alloc(32, 'bench-only-key').toString('base64');

const RABBITMQ_BIN = '/usr/lib/rabbitmq/bin';
const SHIPPED_BROKER_SETTINGS = new URL('../../deploy/rabbitmq/', import.meta.url);

/**
 * The RabbitMQ a benchmark runs against.
 * - BENCH_BROKER=dedicated (the default where RabbitMQ is installed on this machine): a node of its own, started
 *   from this machine's RabbitMQ installation on free loopback ports with the settings the platform ships
 *   (deploy/rabbitmq/*.conf, which docker-compose.yml mounts) and nothing else — no /etc/rabbitmq file applies —
 *   holding only the benchmark's queues. Its files live under bench/results/ (on disk, not a tmpfs); it is stopped
 *   and they are deleted afterwards, also when the benchmark fails or is interrupted.
 * - BENCH_BROKER=system: the machine's running broker on 127.0.0.1:5672, as it is configured.
 * Either way the benchmark gets a fresh vhost `vhost` (`url` points into it); `stop()` removes it (with the whole node,
 * or from the machine's broker). `pids()` lists the broker's own processes, for CPU accounting (the machine's idle
 * broker is not counted).
 */
export async function startBroker(vhost) {
  const node = await startNode();
  try {
    node.ctl(['delete_vhost', vhost], { stdio: 'ignore' });
  } catch {
    // did not exist
  }
  node.ctl(['add_vhost', vhost], { stdio: 'ignore' });
  node.ctl(['set_permissions', '-p', vhost, 'guest', '.*', '.*', '.*'], { stdio: 'ignore' });
  return {
    ...node,
    url: `${node.url}/${vhost}`,
    stop: () => {
      if (node.kind === 'system') node.ctl(['delete_vhost', vhost], { stdio: 'ignore' });
      node.stop();
    },
  };
}

async function startNode() {
  const wanted = process.env.BENCH_BROKER ?? 'dedicated';
  if (wanted !== 'dedicated' || !existsSync(`${RABBITMQ_BIN}/rabbitmq-server`)) {
    return {
      kind: 'system',
      url: 'amqp://guest:guest@127.0.0.1:5672',
      ctl: (args, options = {}) => execFileSync('rabbitmqctl', args, { encoding: 'utf8', ...options }),
      walGlob: '/var/lib/rabbitmq/mnesia/*/quorum/*/*.wal',
      pids: () => undefined,
      stop: () => undefined,
    };
  }
  const dir = fileURLToPath(new URL(`../results/rabbitmq-${process.pid}/`, import.meta.url));
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'conf.d'), { recursive: true });
  const [port, distPort] = await freePorts(2);
  const settings = readdirSync(SHIPPED_BROKER_SETTINGS)
    .filter((file) => file.endsWith('.conf'))
    .sort()
    .map((file) => readFileSync(new URL(file, SHIPPED_BROKER_SETTINGS), 'utf8'));
  writeFileSync(join(dir, 'rabbitmq.conf'), [`listeners.tcp.default = 127.0.0.1:${port}`, ...settings].join('\n'));
  writeFileSync(join(dir, 'enabled_plugins'), '[].\n');
  writeFileSync(join(dir, 'rabbitmq-env.conf'), '');
  // Its own Erlang cookie, written before the node and the CLI start (either would otherwise create it).
  writeFileSync(join(dir, '.erlang.cookie'), randomBytes(20).toString('hex').toUpperCase(), { mode: 0o400 });
  const node = `bench-${process.pid}@localhost`;
  const pidFile = join(dir, 'pid');
  const env = {
    ...process.env,
    HOME: dir,
    RABBITMQ_NODENAME: node,
    RABBITMQ_NODE_PORT: String(port),
    RABBITMQ_DIST_PORT: String(distPort),
    RABBITMQ_CONF_ENV_FILE: join(dir, 'rabbitmq-env.conf'),
    RABBITMQ_CONFIG_FILE: join(dir, 'rabbitmq.conf'),
    RABBITMQ_CONFIG_FILES: join(dir, 'conf.d'),
    RABBITMQ_ADVANCED_CONFIG_FILE: join(dir, 'advanced.config'),
    RABBITMQ_ENABLED_PLUGINS_FILE: join(dir, 'enabled_plugins'),
    RABBITMQ_MNESIA_BASE: join(dir, 'mnesia'),
    RABBITMQ_LOG_BASE: join(dir, 'log'),
    RABBITMQ_PID_FILE: pidFile,
  };
  const ctl = (args, options = {}) =>
    execFileSync(`${RABBITMQ_BIN}/rabbitmqctl`, ['-n', node, ...args], { encoding: 'utf8', env, ...options });
  const brokerPid = () => {
    try {
      return Number(readFileSync(pidFile, 'utf8').trim()) || undefined;
    } catch {
      return undefined;
    }
  };
  let stopped = false;
  /** Stops the node (waiting for its VM to exit; killing it if it does not answer) and deletes its files. */
  const stop = () => {
    if (stopped) return;
    stopped = true;
    const pid = brokerPid();
    try {
      ctl(['stop', pidFile], { stdio: 'ignore', timeout: 60_000 });
    } catch {
      try {
        if (pid) process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
  };
  process.once('exit', stop);
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.once(signal, () => {
      stop();
      process.exit(130);
    });
  }
  try {
    execFileSync(`${RABBITMQ_BIN}/rabbitmq-server`, ['-detached'], { env, stdio: 'ignore' });
    ctl(['wait', pidFile, '--timeout', '120'], { stdio: 'ignore' });
  } catch (error) {
    const logs = globSync(join(dir, 'log', '*.log')).map((file) => readFileSync(file, 'utf8').slice(-3_000));
    stop();
    throw new Error(
      `the benchmark's RabbitMQ node did not start (${error.message}); its log ended:\n${logs.join('\n')}`,
      { cause: error },
    );
  }
  return {
    kind: 'dedicated',
    url: `amqp://guest:guest@127.0.0.1:${port}`,
    ctl,
    walGlob: join(dir, 'mnesia', '*', 'quorum', '*', '*.wal'),
    pids: () => {
      const pid = brokerPid();
      return pid ? new Set([pid]) : undefined;
    },
    stop,
  };
}

/** `count` distinct free loopback ports: all listened on at once, then released. */
async function freePorts(count) {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise((resolve, reject) => {
          const server = createServer();
          server.once('error', reject);
          server.listen(0, '127.0.0.1', () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((server) => server.address().port);
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}

/**
 * A dedicated database and, on the benchmark's broker, a vhost; `cleanup()` removes both and stops the broker.
 * BENCH_POSTGRES_URL names another server (default the machine's, postgres://postgres@127.0.0.1:5432): one with
 * pg_stat_statements loaded, say, to see which statements a run's database time goes to.
 */
export async function freshInfrastructure(name) {
  const server = new URL(process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432');
  server.pathname = `/bench_${name}`;
  const databaseUrl = server.toString();
  await dropDatabase(databaseUrl);
  await ensureDatabase(databaseUrl);
  await migrate(databaseUrl);
  const broker = await startBroker(`bench-${name}`);
  return {
    databaseUrl,
    amqpUrl: broker.url,
    broker: broker.kind,
    brokerPids: broker.pids,
    watchBrokerWal: () => watchBrokerWal(broker),
    /** The PostgreSQL processes of this database (cpu.js groupBy): other databases' work is not the benchmark's. */
    postgresPids: () => postgresPidsOf(databaseUrl),
    cleanup: async () => {
      await dropDatabase(databaseUrl);
      broker.stop();
    },
    stopBroker: () => broker.stop(),
    /** rabbitmqctl on the benchmark's broker (e.g. `stop_app`, `start_app`). */
    brokerCtl: (args) => broker.ctl(args, { stdio: 'ignore', timeout: 120_000 }),
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

/** BENCH_METRICS=1: prints the metrics of each app on `ports` whose names start with one of `names`. */
export async function printMetrics(ports, names) {
  if (process.env.BENCH_METRICS !== '1') return;
  const wanted = new RegExp(`^(${names.join('|')})`);
  for (const port of ports) {
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    console.log(
      `dispatcher :${port}\n${metrics
        .split('\n')
        .filter((line) => wanted.test(line))
        .join('\n')}`,
    );
  }
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
 * Watches the benchmark broker's quorum-queue write-ahead log: its size limit (`raft.wal_max_size_bytes`) and the
 * moments it rolls over to a new file, when RabbitMQ writes what the full one held into per-queue segments — on
 * this 2-core host a stall of a few hundred milliseconds with RabbitMQ's default 512 MiB, smaller and more frequent
 * ones with the 64 MiB the platform ships. `stop()` returns the rollover times (performance.now()). Without access
 * to the broker's files it reports nothing.
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
