// Shared set-up for the benchmarks: a dedicated database and vhost per benchmark (never the dev data),
// child processes for the apps, and small statistics helpers. Loopback only; every loop is bounded.
import { execFileSync, spawn } from 'node:child_process';
import { globSync } from 'node:fs';
import { dropDatabase, ensureDatabase, migrate } from '../../dist/libs/persistence/src/index.js';
import { APP_NODE_FLAGS } from '../../scripts/node-flags.js';

export const BENCH_KEY = Buffer.alloc(32, 'bench-only-key').toString('base64');

export async function freshInfrastructure(name) {
  const databaseUrl = `postgres://postgres@127.0.0.1:5432/bench_${name}`;
  await dropDatabase(databaseUrl);
  await ensureDatabase(databaseUrl);
  await migrate(databaseUrl);
  const vhost = `bench-${name}`;
  try {
    execFileSync('rabbitmqctl', ['delete_vhost', vhost], { stdio: 'ignore' });
  } catch {
    // did not exist
  }
  execFileSync('rabbitmqctl', ['add_vhost', vhost], { stdio: 'ignore' });
  execFileSync('rabbitmqctl', ['set_permissions', '-p', vhost, 'guest', '.*', '.*', '.*'], { stdio: 'ignore' });
  const amqpUrl = `amqp://guest:guest@127.0.0.1:5672/${vhost}`;
  return {
    databaseUrl,
    amqpUrl,
    cleanup: async () => {
      await dropDatabase(databaseUrl);
      execFileSync('rabbitmqctl', ['delete_vhost', vhost], { stdio: 'ignore' });
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
export function watchBrokerWal() {
  let maxBytes = null;
  try {
    const out = execFileSync('rabbitmqctl', ['eval', 'application:get_env(ra, wal_max_size_bytes).'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    maxBytes = Number(/\{ok,(\d+)\}/.exec(out)?.[1]) || null;
  } catch {
    // no rabbitmqctl here
  }
  const walFiles = () => {
    try {
      return globSync('/var/lib/rabbitmq/mnesia/*/quorum/*/*.wal');
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
