// `npm run bench:dispatch` — webhook-dispatcher throughput and latency on this machine.
//
// 1. fan-out: EVENTS transaction events × WEBHOOKS webhooks, queued before the dispatcher starts, drained by one
//    dispatcher process to a fast loopback receiver (its own process). deliveries/s from first to last arrival.
//    Beside it, in the same run: a bare undici loop (one process) sending the same bodies with the same signatures
//    to the same receiver at the same concurrency. Then the fan-out again with one dispatcher process per core
//    (competing consumers: a Node process runs its JavaScript on one thread, and the dispatcher scales out by
//    processes; BENCH_SKIP_PER_CORE=1 skips it), its ratio taken to the same loop.
// 2. latency (when transaction-api is built; BENCH_DISPATCHERS dispatcher processes, default one per core): RATE status changes/s for WARMUP_SECONDS s (reported apart: a
//    freshly started dispatcher and API), then SECONDS s measured, through the platform API;
//    p50/p99 from the API's answer to the receiver's arrival — to one webhook, then with 10 webhooks of which
//    one never answers (the other nine measured; BENCH_BLACK_HOLES changes how many of the 10 never answer).
// 3. end to end (when transaction-api is built; issue #32): BENCH_PAYMENTS payments recorded through the platform API as
//    fast as it answers, each delivered to WEBHOOKS webhooks, from the first API call to the last arrival — with one
//    dispatcher process, then one per core — beside the bare loop in the same run (BENCH_ONLY_E2E=1: only this;
//    BENCH_SKIP_E2E=1: not this).
// Broker: a RabbitMQ node of the benchmark's own with the settings the platform ships (deploy/rabbitmq/), started
// from this machine's RabbitMQ installation; BENCH_BROKER=system runs against the machine's broker as configured.
// BENCH_TRACING=1: the dispatchers (and transaction-api) run with tracing on, exporting to an OTLP/HTTP sink of the
// benchmark's own (a process that answers 200 and counts); the run prints how many exports and bytes arrived.
// Results: printed, and written to bench/results/dispatch.json and, as a chart, dispatch.svg. Everything runs on 127.0.0.1 and stops by itself.
import { spawnSync } from 'node:child_process';
import { startReceiver } from '../lib/receiver.js';
import { startTraceSink } from '../lib/trace-sink.js';
import { PLATFORM_TOKEN } from '../lib/platform-api.js';
import { webhookFixtures } from '../lib/webhooks.js';
import { randomUUID, randomUUIDv7 } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import pg from 'pg';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 20_000);
const WEBHOOKS = Number(process.env.BENCH_WEBHOOKS ?? 10);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 500);
const RATE = Number(process.env.BENCH_RATE ?? 200);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 10);
const PAYMENTS = Number(process.env.BENCH_PAYMENTS ?? 2_000);
const ONLY_E2E = process.env.BENCH_ONLY_E2E === '1';
const CORES = availableParallelism();
// Dispatcher processes (competing consumers) in the latency scenarios: by default one per core, the configuration
// the per-core fan-out measures, so that one configuration is measured against every goal.
const DISPATCHERS = Number(process.env.BENCH_DISPATCHERS ?? CORES);
if (!Number.isInteger(DISPATCHERS) || DISPATCHERS < 1) throw new Error('BENCH_DISPATCHERS must be a whole number ≥ 1');

if (process.env.BENCH_SKIP_BUILD !== '1') {
  const build = spawnSync('nx', ['run-many', '-t', 'build', '--output-style=static'], { stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

const { BENCH_KEY, freshInfrastructure, startApp, waitReady, stopChild, printMetrics, percentile, round } =
  await import('../lib/infra.js');
const { buildWebhookHeaders, generateWebhookSecret, encodePayload, renderWebhookPayload, sampleSubjectOf } =
  await import('../../dist/libs/domain/src/index.js');
const { SecretCipher } = await import('../../dist/libs/platform/src/crypto/secret-cipher.js');
const { AmqpClient, EXCHANGES, publishWebhookChanged } = await import('../../dist/libs/messaging/src/index.js');
const { Agent, request } = await import('undici');
const { cpuSnapshot, cpuSecondsBetween, groupBy } = await import('../lib/cpu.js');

const infra = await freshInfrastructure('dispatch');
const db = new pg.Pool({ connectionString: infra.databaseUrl, max: 4 });
const cipher = new SecretCipher(Buffer.from(BENCH_KEY, 'base64'));
const results = {
  machine: { cores: (await import('node:os')).cpus().length, node: process.version },
  broker: infra.broker,
  date: new Date().toISOString(),
};

const configChanges = new AmqpClient({ url: infra.amqpUrl, name: 'bench-config', topology: { retryDelaysMs: [] } });
await configChanges.waitForConnect();

const { child: receiver, port: receiverPort, ask } = await startReceiver();
const base = `http://127.0.0.1:${receiverPort}`;
const traceSink = process.env.BENCH_TRACING === '1' ? await startTraceSink() : undefined;
/** What every app the benchmark starts gets for tracing: on with BENCH_TRACING=1, exporting to the sink. */
const tracingEnv = traceSink ? { OTEL_EXPORTER_OTLP_ENDPOINT: traceSink.url } : {};
/** The benchmark's own processes by pid, for the CPU groups. */
const ownPids = [[receiver.pid, 'receiver'], ...(traceSink ? [[traceSink.child.pid, 'traceSink']] : [])];
const { createMerchant, createWebhook } = webhookFixtures({
  db,
  cipher,
  changes: configChanges,
  generateWebhookSecret,
  publishWebhookChanged,
});

function transactionEvent(merchantId, integrationId, i) {
  const uuid = randomUUID();
  const now = new Date().toISOString();
  return {
    v: 1,
    id: randomUUIDv7(), // as transaction-api's outbox makes them
    type: 'transaction.created',
    category: 'transaction',
    merchantId,
    integrationId,
    occurredAt: now,
    subjectId: uuid,
    data: sampleSubjectOf('transaction', { id: uuid, at: now, integrationId, referenceId: `order-${i}` }).transaction,
  };
}

const dispatcherEnv = {
  DATABASE_URL: infra.databaseUrl,
  AMQP_URL: infra.amqpUrl,
  SECRET_ENCRYPTION_KEY: BENCH_KEY,
  WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  WEBHOOK_DISPATCHER_PORT: '3902',
  PLATFORM_TOKEN,
  DISPATCHER_CONCURRENCY: String(CONCURRENCY),
  ...tracingEnv,
};

// ---- 1. fan-out throughput -------------------------------------------------------------------------------
/**
 * Queues EVENTS events for WEBHOOKS fresh webhooks, starts `processes` dispatchers (competing consumers) and
 * measures deliveries/s from the first to the last arrival, with each process group's CPU per 10,000 deliveries.
 */
async function measureFanOut(processes) {
  const { merchantId, integrationId } = await createMerchant();
  const hooks = [];
  for (let i = 0; i < WEBHOOKS; i += 1) hooks.push(await createWebhook(merchantId, `${base}/fanout/${i}`));
  const amqp = new AmqpClient({ url: infra.amqpUrl, name: 'bench', topology: { retryDelaysMs: [] } });
  await amqp.waitForConnect();
  const events = Array.from({ length: EVENTS }, (_, i) => transactionEvent(merchantId, integrationId, i));
  for (let i = 0; i < events.length; i += 1000) {
    await Promise.all(
      events.slice(i, i + 1000).map((e) => amqp.publish(EXCHANGES.events, e.type, Buffer.from(JSON.stringify(e)))),
    );
  }
  await amqp.close();
  await ask('arrivals'); // clear
  receiver.send('reset');
  const total = EVENTS * WEBHOOKS;
  const logsBefore = (await db.query('SELECT count(*)::int AS n FROM webhook_log')).rows[0].n;
  const cpuBefore = cpuSnapshot(() => undefined);
  const benchCpuBefore = process.cpuUsage();
  const dispatchers = Array.from({ length: processes }, (_, i) =>
    startApp('webhook-dispatcher', { ...dispatcherEnv, WEBHOOK_DISPATCHER_PORT: String(3902 + 10 * i) }),
  );
  // The dispatchers' resident memory, sampled every second: bounded however many deliveries wait (#32).
  let maxRssBytes = 0;
  const rssSampler = setInterval(() => {
    const rss = dispatchers.reduce((sum, d) => sum + rssOf(d.pid), 0);
    maxRssBytes = Math.max(maxRssBytes, rss);
  }, 1_000);
  let first;
  const deadline = Date.now() + 1_800_000;
  for (;;) {
    const { count } = await ask('count');
    if (count > 0 && first === undefined) first = { at: performance.now(), count };
    if (count >= total) break;
    if (Date.now() > deadline) throw new Error(`only ${count} of ${total} deliveries arrived within 30 minutes`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  clearInterval(rssSampler);
  const seconds = (performance.now() - first.at) / 1000;
  // CPU seconds per 10,000 deliveries, by process, read before the dispatchers stop (their database sessions go).
  const named = new Map([...ownPids, ...dispatchers.map((d) => [d.pid, 'dispatcher'])]);
  const cpu = cpuSecondsBetween(cpuBefore, cpuSnapshot(groupBy(named, infra.brokerPids(), await infra.postgresPids())));
  const benchCpu = process.cpuUsage(benchCpuBefore);
  await printMetrics(
    dispatchers.map((_, i) => 3902 + 10 * i),
    ['webhook_deliveries_total', 'webhook_delivery_decisions'],
  );
  cpu.benchmark = (benchCpu.user + benchCpu.system) / 1e6;
  await Promise.all(dispatchers.map(stopChild));
  const logged = (await db.query('SELECT count(*)::int AS n FROM webhook_log')).rows[0].n - logsBefore;
  await ask('arrivals');
  return {
    events,
    hooks,
    run: {
      dispatcherProcesses: processes,
      dispatcherDeliveriesPerSecond: round((total - first.count) / seconds, 0),
      logRows: logged,
      dispatcherMaxRssMb: round(maxRssBytes / 2 ** 20, 0),
      cpuSecondsPer10kDeliveries: per10k(cpu, total),
    },
  };
}

/** A process's resident memory in bytes (0 once it is gone). */
function rssOf(pid) {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return Number(kb ?? 0) * 1024;
  } catch {
    return 0;
  }
}

function per10k(seconds, deliveries) {
  return Object.fromEntries(
    Object.entries(seconds).map(([group, secondsOfCpu]) => [group, round((secondsOfCpu * 10_000) / deliveries, 2)]),
  );
}

/** The same bodies and signatures to the same receiver at the same concurrency, with no broker and no database. */
async function measureBareLoop(events, hooks, total = EVENTS * WEBHOOKS) {
  const bodies = events
    .slice(0, 2000)
    .map(
      (e) =>
        encodePayload('json', renderWebhookPayload('2026-08-20', { type: 'transaction', transaction: e.data })).body,
    );
  const agent = new Agent({ keepAliveTimeout: 10_000 });
  let next = 0;
  const bareCpuBefore = cpuSnapshot(() => undefined);
  const bareClientCpuBefore = process.cpuUsage();
  const bareStart = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (;;) {
        const i = next++;
        if (i >= total) return;
        const hook = hooks[i % WEBHOOKS];
        const body = bodies[i % bodies.length];
        const headers = buildWebhookHeaders({
          webhookId: randomUUID(),
          timestamp: new Date(),
          body,
          secrets: [hook.secret],
          contentType: 'json',
        });
        const response = await request(`${hook.url}`, { method: 'POST', headers, body, dispatcher: agent });
        await response.body.text();
      }
    }),
  );
  const perSecond = round(total / ((performance.now() - bareStart) / 1000), 0);
  const bareCpu = cpuSecondsBetween(
    bareCpuBefore,
    cpuSnapshot(groupBy(new Map(ownPids), infra.brokerPids(), await infra.postgresPids())),
  );
  const bareClientCpu = process.cpuUsage(bareClientCpuBefore);
  bareCpu.loop = (bareClientCpu.user + bareClientCpu.system) / 1e6;
  await agent.close();
  await ask('arrivals');
  return { perSecond, cpuSecondsPer10kDeliveries: per10k(bareCpu, total) };
}

if (process.env.BENCH_SKIP_FANOUT !== '1' && !ONLY_E2E) {
  // The bare loop right after the one-process run, which it is compared with first (the host's speed drifts).
  const main = await measureFanOut(1);
  const bare = await measureBareLoop(main.events, main.hooks);
  const perCore = CORES > 1 && process.env.BENCH_SKIP_PER_CORE !== '1' ? (await measureFanOut(CORES)).run : undefined;
  const ratio = (run) => round(run.dispatcherDeliveriesPerSecond / bare.perSecond, 3);
  results.fanOut = {
    events: EVENTS,
    webhooks: WEBHOOKS,
    deliveries: EVENTS * WEBHOOKS,
    concurrency: CONCURRENCY,
    ...main.run,
    bareUndiciLoopPerSecond: bare.perSecond,
    ratio: ratio(main.run),
    bareLoopCpuSecondsPer10kDeliveries: bare.cpuSecondsPer10kDeliveries,
    ...(perCore && { onePerCore: { ...perCore, ratio: ratio(perCore) } }),
  };
  console.log('fan-out:', results.fanOut);
}

// ---- 2. latency through the platform API ----------------------------------------------------------------
const apiBuilt = existsSync('dist/apps/transaction-api/src/main.js');
if (apiBuilt && process.env.BENCH_SKIP_LATENCY !== '1' && !ONLY_E2E) {
  const { latencyScenario } = await import('./latency.js');
  const common = {
    infra,
    db,
    ask,
    base,
    ownPids,
    tracingEnv,
    createMerchant,
    createWebhook,
    watchBrokerWal: infra.watchBrokerWal,
    startApp,
    waitReady,
    stopChild,
    printMetrics,
    percentile,
    round,
    dispatcherEnv,
    dispatchers: DISPATCHERS,
    RATE,
    SECONDS,
    WARMUP_SECONDS,
  };
  if (process.env.BENCH_ONLY_LIFECYCLE === '1') {
    // The delivery lifecycle on: 100 webhooks, of which 30 are failing (500 to everything, repeated), rate-limited
    // (maxPerSecond 5, far below what they are sent) or disabled; the healthy 70's latency is measured. 20 status
    // changes/s (2,000 deliveries/s for 100 webhooks, within the fan-out's capacity on 2 cores).
    results.latencyLifecycle = await latencyScenario({
      ...common,
      RATE: Number(process.env.BENCH_LIFECYCLE_RATE ?? 20),
      webhooks: 70,
      blackHoles: 0,
      failing: 10,
      rateLimited: 10,
      disabled: 10,
    });
    console.log('latency, 70 healthy + 10 failing + 10 rate-limited + 10 disabled:', results.latencyLifecycle);
  } else if (process.env.BENCH_ONLY_BLACK_HOLE !== '1') {
    results.latencyOneWebhook = await latencyScenario({ ...common, webhooks: 1, blackHoles: 0 });
    console.log('latency, one webhook:', results.latencyOneWebhook);
  }
  results.latencyWithBlackHole = await latencyScenario({
    ...common,
    webhooks: 10 - Number(process.env.BENCH_BLACK_HOLES ?? 1),
    blackHoles: Number(process.env.BENCH_BLACK_HOLES ?? 1),
  });
  console.log('latency, 9 healthy + 1 never answering:', results.latencyWithBlackHole);
}

// ---- 3. end to end: platform API → arrival, beside the bare loop -----------------------------------------
if (apiBuilt && process.env.BENCH_SKIP_E2E !== '1') {
  const { endToEndScenario } = await import('./end-to-end.js');
  const context = {
    infra,
    ask,
    receiver,
    base,
    ownPids,
    tracingEnv,
    createWebhook,
    startApp,
    waitReady,
    stopChild,
    printMetrics,
    round,
    dispatcherEnv,
    PAYMENTS,
    WEBHOOKS,
  };
  const { hooks, ...one } = await endToEndScenario(context, 1);
  // The bare loop right after it, with bodies of the same shape, signed with the same webhooks' secrets.
  const { merchantId, integrationId } = await createMerchant();
  const events = Array.from({ length: 2_000 }, (_, i) => transactionEvent(merchantId, integrationId, i));
  // Twice, and the faster counts: 20,000 requests take the loop about a second, part of it warming up.
  const loops = [];
  for (let i = 0; i < 2; i += 1) loops.push(await measureBareLoop(events, hooks, PAYMENTS * WEBHOOKS));
  const bare = loops.reduce((a, b) => (b.perSecond > a.perSecond ? b : a));
  const perCore = CORES > 1 ? (({ hooks: _, ...run }) => run)(await endToEndScenario(context, CORES)) : undefined;
  const ratio = (run) => round(run.deliveriesPerSecond / bare.perSecond, 3);
  results.endToEnd = {
    ...one,
    bareUndiciLoopPerSecond: bare.perSecond,
    ratio: ratio(one),
    bareLoopCpuSecondsPer10kDeliveries: bare.cpuSecondsPer10kDeliveries,
    ...(perCore && { onePerCore: { ...perCore, ratio: ratio(perCore) } }),
  };
  console.log('end to end:', results.endToEnd);
}

if (traceSink) {
  // Read after every app stopped: each exports its last spans on shutdown.
  results.tracing = await traceSink.counts();
  const { requests, bytes, requestsByService } = results.tracing;
  console.log(
    `tracing: ${requests} trace export requests (${bytes} bytes) arrived at the OTLP sink:`,
    requestsByService,
  );
  traceSink.child.kill();
}
receiver.kill();
await configChanges.close();
await db.end();
mkdirSync('bench/results', { recursive: true });
writeFileSync('bench/results/dispatch.json', `${JSON.stringify(results, null, 2)}\n`);
const { dispatchChart } = await import('./chart.js');
writeFileSync('bench/results/dispatch.svg', dispatchChart(results));
await infra.cleanup();
console.log(
  'written bench/results/dispatch.json and dispatch.svg (the README shows a copy: docs/benchmarks/dispatch.svg)',
);
