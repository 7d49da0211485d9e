// `npm run bench:chaos` — nothing lost on a bad day (issue #32): payments recorded through transaction-api's platform
// API at a steady rate until CHAOS_PAYMENTS of them are confirmed (a 2xx answer), each delivered to WEBHOOKS webhooks,
// with one dispatcher process per core, while, one after the other:
//   a dispatcher is SIGKILLed (and started again), transaction-api is SIGKILLed (and started again), the RabbitMQ node
//   is stopped and started (stop_app / start_app), PostgreSQL is restarted, the other dispatcher is SIGKILLed.
// Then it waits until every (confirmed payment, webhook) pair has arrived at the receiver, or CHAOS_SETTLE_SECONDS
// have passed, and reports the pairs missing (the goal: none) and the repeats (allowed, counted).
// PostgreSQL is restarted with pg_ctlcluster: the cluster on BENCH_POSTGRES_URL's port (default the machine's, 5432),
// so run it on a quiet machine — or on a cluster of its own (BENCH_POSTGRES_URL=postgres://postgres@127.0.0.1:5433).
// Results: printed and written to bench/results/chaos.json. Everything runs on 127.0.0.1 and stops by itself.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import pg from 'pg';
import { cardPayment, PLATFORM_TOKEN, platformApi } from '../lib/platform-api.js';
import { startReceiver } from '../lib/receiver.js';
import { webhookFixtures } from '../lib/webhooks.js';

const PAYMENTS = Number(process.env.CHAOS_PAYMENTS ?? 1_500);
const WEBHOOKS = Number(process.env.BENCH_WEBHOOKS ?? 10);
const RATE = Number(process.env.CHAOS_RATE ?? 40);
const SETTLE_SECONDS = Number(process.env.CHAOS_SETTLE_SECONDS ?? 300);
const DISPATCHERS = availableParallelism();

if (process.env.BENCH_SKIP_BUILD !== '1') {
  const build = spawnSync('nx', ['run-many', '-t', 'build', '--output-style=static'], { stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

const { BENCH_KEY, freshInfrastructure, startApp, waitReady, stopChild, round } = await import('../lib/infra.js');
const { generateWebhookSecret } = await import('../../dist/libs/domain/src/index.js');
const { SecretCipher } = await import('../../dist/libs/platform/src/crypto/secret-cipher.js');
const { AmqpClient, publishWebhookChanged } = await import('../../dist/libs/messaging/src/index.js');

/** The PostgreSQL cluster serving `url` (pg_lsclusters), to restart it. */
function clusterOf(url) {
  const port = new URL(url).port || '5432';
  const line = execFileSync('pg_lsclusters', ['-h'], { encoding: 'utf8' })
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .find((fields) => fields[2] === port);
  if (!line) throw new Error(`no PostgreSQL cluster on port ${port} (pg_lsclusters)`);
  return { version: line[0], name: line[1] };
}

const infra = await freshInfrastructure('chaos');
const postgres = clusterOf(infra.databaseUrl);
const db = new pg.Pool({ connectionString: infra.databaseUrl, max: 2 });
db.on('error', () => undefined); // its connections go with the restart; a query after it reconnects
const changes = new AmqpClient({ url: infra.amqpUrl, name: 'bench-config', topology: { retryDelaysMs: [] } });
await changes.waitForConnect();
const { createWebhook } = webhookFixtures({
  db,
  cipher: new SecretCipher(Buffer.from(BENCH_KEY, 'base64')),
  changes,
  generateWebhookSecret,
  publishWebhookChanged,
});
const { child: receiver, port: receiverPort, ask } = await startReceiver();
const base = `http://127.0.0.1:${receiverPort}`;

const apiEnv = {
  DATABASE_URL: infra.databaseUrl,
  AMQP_URL: infra.amqpUrl,
  PLATFORM_TOKEN,
  TRANSACTION_API_PORT: '3901',
};
const dispatcherEnv = (i) => ({
  DATABASE_URL: infra.databaseUrl,
  AMQP_URL: infra.amqpUrl,
  SECRET_ENCRYPTION_KEY: BENCH_KEY,
  WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  WEBHOOK_DISPATCHER_PORT: String(3902 + 10 * i),
  PLATFORM_TOKEN,
});
let api = startApp('transaction-api', apiEnv);
const dispatchers = Array.from({ length: DISPATCHERS }, (_, i) => startApp('webhook-dispatcher', dispatcherEnv(i)));
// Whatever the API's state, every call settles: a confirmation or not within 20 s.
const platform = platformApi('http://127.0.0.1:3901', { connections: 32, timeoutMs: 20_000 });
const { post } = platform;
const results = { date: new Date().toISOString(), payments: PAYMENTS, webhooks: WEBHOOKS, rate: RATE, events: [] };

/** Arrivals so far, by `uuid path`: how many times each pair arrived. */
const arrived = new Map();
async function collect() {
  const { arrivals } = await ask('arrivals');
  for (const [uuid, , url] of arrivals) {
    if (!url.startsWith('/chaos/')) continue;
    const key = `${uuid} ${url}`;
    arrived.set(key, (arrived.get(key) ?? 0) + 1);
  }
}

/** SIGKILLs `child` and resolves once it is gone. */
function kill(child, what) {
  results.events.push({ at: elapsed(), what });
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', resolve);
    child.kill('SIGKILL');
  });
}
let loadStartedAt;
const elapsed = () => round((performance.now() - loadStartedAt) / 1000, 1);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

try {
  await waitReady('http://127.0.0.1:3901/health/ready');
  for (let i = 0; i < DISPATCHERS; i += 1) await waitReady(`http://127.0.0.1:${3902 + 10 * i}/health/ready`);
  const merchant = await post('/internal/merchants', { name: 'Chaos merchant' });
  const integration = await post(`/internal/merchants/${merchant.id}/integrations`, { name: 'shop' });
  for (let i = 0; i < WEBHOOKS; i += 1) {
    await createWebhook(merchant.id, `${base}/chaos/${i}`, { retryOnError: true });
  }
  await sleep(2_000);
  await ask('arrivals');

  // The disruptions, one after the other, while the payments come in.
  loadStartedAt = performance.now();
  const disruptions = (async () => {
    await sleep(4_000);
    await kill(dispatchers[0], 'dispatcher 1 SIGKILLed');
    await sleep(2_000);
    dispatchers[0] = startApp('webhook-dispatcher', dispatcherEnv(0));
    await sleep(4_000);
    await kill(api, 'transaction-api SIGKILLed');
    await sleep(1_000);
    api = startApp('transaction-api', apiEnv);
    results.events.push({ at: elapsed(), what: 'transaction-api started again' });
    await sleep(5_000);
    results.events.push({ at: elapsed(), what: 'RabbitMQ stop_app' });
    infra.brokerCtl(['stop_app']);
    await sleep(5_000);
    infra.brokerCtl(['start_app']);
    results.events.push({ at: elapsed(), what: 'RabbitMQ start_app done' });
    await sleep(5_000);
    results.events.push({ at: elapsed(), what: 'PostgreSQL restart' });
    execFileSync('pg_ctlcluster', [
      '--skip-systemctl-redirect',
      postgres.version,
      postgres.name,
      'restart',
      '-m',
      'fast',
    ]);
    results.events.push({ at: elapsed(), what: 'PostgreSQL restarted' });
    await sleep(5_000);
    const last = dispatchers.length - 1;
    await kill(dispatchers[last], `dispatcher ${last + 1} SIGKILLed`);
    await sleep(2_000);
    dispatchers[last] = startApp('webhook-dispatcher', dispatcherEnv(last));
    results.events.push({ at: elapsed(), what: `dispatcher ${last + 1} started again` });
  })();

  // The payments: RATE calls a second until PAYMENTS of them are confirmed.
  const confirmed = [];
  let refused = 0;
  const calls = [];
  let phase = 'payments';
  const progress = setInterval(() => {
    const pending = calls.filter((c) => c.done !== true).length;
    console.log(`${elapsed()} s, ${phase}: ${confirmed.length} confirmed, ${refused} not, ${pending} pending`);
  }, 5_000);
  for (let i = 0; confirmed.length < PAYMENTS; i += 1) {
    const due = loadStartedAt + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    if (confirmed.length >= PAYMENTS) break; // the last ones came in meanwhile
    const pending = calls.filter((c) => c.done !== true);
    if (confirmed.length + pending.length >= PAYMENTS) {
      // Enough in flight: wait for one to settle before deciding to call again.
      phase = 'waiting for calls in flight';
      await Promise.race(pending.map((c) => c.promise));
      phase = 'payments';
      continue;
    }
    const call = {};
    call.promise = post('/internal/transactions', cardPayment(merchant.id, integration.id, `chaos-${i}`)).then(
      (transaction) => confirmed.push(transaction.uuid),
      () => (refused += 1),
    );
    call.promise = call.promise.finally(() => (call.done = true));
    calls.push(call);
    if (i % 100 === 0) {
      phase = 'collecting arrivals';
      await collect();
      phase = 'payments';
    }
  }
  await Promise.all(calls.map((c) => c.promise));
  const lastConfirmedAt = elapsed();
  console.log(
    `${lastConfirmedAt} s: ${confirmed.length} payments confirmed (${refused} calls not); waiting for the rest`,
  );
  await disruptions;
  console.log(`${elapsed()} s: disruptions over:`, results.events);
  phase = 'waiting for every pair';

  // Wait for every confirmed pair.
  const expected = confirmed.flatMap((uuid) => Array.from({ length: WEBHOOKS }, (_, w) => `${uuid} /chaos/${w}`));
  const deadline = Date.now() + SETTLE_SECONDS * 1000;
  let missing = expected.length;
  while (Date.now() < deadline) {
    await collect();
    missing = expected.filter((key) => !arrived.has(key)).length;
    if (missing === 0) break;
    if (Math.round(elapsed()) % 10 === 0) console.log(`${elapsed()} s: ${missing} of ${expected.length} pairs missing`);
    await sleep(1_000);
  }
  clearInterval(progress);
  const repeats = expected.reduce((sum, key) => sum + Math.max(0, (arrived.get(key) ?? 0) - 1), 0);
  Object.assign(results, {
    dispatcherProcesses: DISPATCHERS,
    confirmedPayments: confirmed.length,
    refusedCalls: refused,
    pairs: expected.length,
    missingPairs: missing,
    repeatedArrivals: repeats,
    lastConfirmedAtSeconds: lastConfirmedAt,
    allArrivedAtSeconds: missing === 0 ? elapsed() : null,
  });
  console.log('chaos:', results);
} finally {
  await platform.close();
  await Promise.all([...dispatchers, api].map(stopChild));
  receiver.kill();
  await changes.close();
  await db.end();
  await infra.cleanup();
}
mkdirSync('bench/results', { recursive: true });
writeFileSync('bench/results/chaos.json', `${JSON.stringify(results, null, 2)}\n`);
console.log('written bench/results/chaos.json');
process.exit(results.missingPairs === 0 ? 0 : 1);
