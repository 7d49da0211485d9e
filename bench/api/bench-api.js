// `npm run bench:api` — transaction-api throughput and latency against a bare node:http + pg baseline.
//
//  1. builds transaction-api (tsc) and creates a dedicated database `payments_bench_api` (BENCH_DATABASE_URL),
//     migrates it and fills it with 1,000,000 transactions of one merchant (generate_series, one statement);
//  2. starts the real app (production mode, its own RabbitMQ vhost) and the baseline, both on 127.0.0.1;
//  3. autocannon: retrieve-one (random uuids), list (limit 20) on page 1, page 1,000 and page 10,000, and the
//     catch-up walk (updatedFrom = the median updated_at, order=updatedAt, limit 20) on the same pages,
//     app vs baseline in the same run;
//  4. recording rate: transactions + status changes through the platform API for a fixed time, each with its
//     outbox event, then the time for the relay to publish everything;
//  5. prints a Markdown report (also written to bench/results/api-<date>.md) and stops everything it started.
//
// Env: BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/payments_bench_api), BENCH_AMQP_URL
// (default: a RabbitMQ node of the benchmark's own with the platform's settings, see bench/lib/infra.js;
// BENCH_BROKER=system: the machine's broker on 127.0.0.1:5672; a vhost `bench-api` either way),
// BENCH_ROWS (1000000), BENCH_DURATION (seconds per read run, 5; write runs take twice as long), BENCH_CONNECTIONS (32), BENCH_POOL_SIZE (10 = the app's default, for app and baseline), BENCH_KEEP_DB=1 to keep
// (and reuse) the filled database, BENCH_APP_NODE_ARGS (extra node flags for app and baseline, e.g. `--cpu-prof`).
import amqplib from 'amqplib';
import autocannon from 'autocannon';
import { execFile, fork, spawn } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import pg from 'pg';
import { Pool as HttpPool } from 'undici';
import { APP_NODE_FLAGS } from '../../scripts/node-flags.js';
import { cpuSecondsBetween, cpuSnapshot, groupBy } from '../lib/cpu.js';

const run = promisify(execFile);
const root = new URL('../../', import.meta.url);
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/payments_bench_api';
const AMQP_GIVEN = process.env.BENCH_AMQP_URL;
const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const POOL_SIZE = Number(process.env.BENCH_POOL_SIZE ?? 10);
const KEEP_DB = process.env.BENCH_KEEP_DB === '1';
const SCENARIOS = (process.env.BENCH_SCENARIOS ?? 'read,write').split(',');
const EXTRA_NODE_ARGS = (process.env.BENCH_APP_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
const PLATFORM_TOKEN = randomBytes(24).toString('base64url');
const VHOST = 'bench-api';
const children = [];
/** Processes by name for CPU accounting: the app and the baseline. */
const named = new Map();
const log = (...args) => console.error('[bench:api]', ...args);

for (const url of [DATABASE_URL, AMQP_GIVEN ?? 'amqp://127.0.0.1']) {
  if (!['127.0.0.1', 'localhost'].includes(new URL(url).hostname)) throw new Error('benchmarks only target 127.0.0.1');
}

async function main() {
  log('building transaction-api');
  await run('npx', ['nx', 'run', 'transaction-api:build', '--output-style=static'], { cwd: root, maxBuffer: 1 << 24 });
  const persistence = await import(new URL('dist/libs/persistence/src/index.js', root).href);

  const filled = await prepareDatabase(persistence);
  const amqpUrl = await prepareBroker();
  try {
    const app = await startApp(amqpUrl);
    const baseline = await startBaseline(filled.merchantId);
    const report = SCENARIOS.includes('read') ? await measure(filled, app, baseline) : { results: [], plans: [] };
    if (SCENARIOS.includes('write')) report.write = await measureWrites(app, baseline, filled, amqpUrl);
    const markdown = render(report);
    mkdirSync(new URL('bench/results/', root), { recursive: true });
    const file = new URL(`bench/results/api-${new Date().toISOString().slice(0, 10)}.md`, root);
    writeFileSync(file, markdown);
    console.log(markdown);
  } finally {
    await stopChildren();
    broker?.stop();
    if (!KEEP_DB) await persistence.dropDatabase(DATABASE_URL);
  }
}

async function query(text, values = []) {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    return (await client.query(text, values)).rows;
  } finally {
    await client.end();
  }
}

async function prepareDatabase(persistence) {
  if (!KEEP_DB) await persistence.dropDatabase(DATABASE_URL);
  await persistence.ensureDatabase(DATABASE_URL);
  await persistence.migrate(DATABASE_URL);
  const existing =
    await query(`SELECT m.id, count(t.uuid)::int AS n FROM merchant m LEFT JOIN transaction t ON t.merchant_id = m.id
                                WHERE m.name = 'Bench merchant' GROUP BY m.id`);
  const apiKey = `pk_${randomBytes(32).toString('base64url')}`;
  const hash = createHash('sha256').update(apiKey).digest();
  let merchantId = existing[0]?.id;
  if (existing[0]?.n >= ROWS) {
    log(`reusing ${ROWS} transactions`);
  } else {
    if (merchantId) throw new Error('the bench database holds a partial fill; drop it (run without BENCH_KEEP_DB)');
    merchantId = randomUUID();
    await query(`INSERT INTO merchant (id, name) VALUES ($1, 'Bench merchant')`, [merchantId]);
    log(`filling ${ROWS.toLocaleString('en')} transactions`);
    const started = Date.now();
    await query(
      `INSERT INTO transaction (uuid, merchant_id, reference_id, status, psp, type, payment_method, amount, currency,
                                three_d_secure, creation_fingerprint, created_at, updated_at)
       SELECT gen_random_uuid(), $1, 'order-' || i,
              (ARRAY['waiting','confirmed','authorized','refunded','declined'])[1 + i % 5],
              (ARRAY['Payrexx Direct','Stripe','Adyen'])[1 + i % 3],
              (ARRAY['e-commerce','e-commerce','pos','tap-to-pay'])[1 + i % 4],
              (ARRAY['visa','mastercard','twint','amex'])[1 + i % 4],
              100 + i % 100000, 'CHF',
              CASE WHEN i % 4 IN (0, 1) AND i % 2 = 0 THEN '{"eci":"05","source":"3ds","version":"2.2.0","flow":"challenge"}'::jsonb END,
              '\\x00', c,
              -- Last changed when created (waiting), or by a status change up to two days later: the change order
              -- is the creation order shuffled locally, as in life.
              c + CASE WHEN i % 5 = 0 THEN 0 ELSE (i::bigint * 7919) % 172800 END * interval '1 second'
         FROM generate_series(1, $2) AS i, LATERAL (SELECT timestamptz '2025-01-01' + i * interval '17 seconds' AS c) t`,
      [merchantId, ROWS],
    );
    await query('ANALYZE transaction');
    log(`filled in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
  // A reused database holds the dead rows of earlier runs' status changes and published events; this machine's
  // PostgreSQL runs without autovacuum, so vacuum here as autovacuum would in production.
  await query('VACUUM (ANALYZE) transaction, outbox_event');
  // Flush the fill's writes now, so the checkpoint they cause does not compete with the measured commits.
  await query('CHECKPOINT');
  const integrationId = randomUUID();
  await query(
    `INSERT INTO integration (id, merchant_id, name, api_key_hash, api_key_prefix) VALUES ($1, $2, 'Bench', $3, $4)`,
    [integrationId, merchantId, hash, apiKey.slice(0, 9)],
  );
  const sample = (await query(`SELECT uuid FROM transaction TABLESAMPLE SYSTEM (1) LIMIT 2000`)).map((row) => row.uuid);
  const deep = async (offset) => {
    const [row] = await query(
      `SELECT created_at, uuid FROM transaction WHERE merchant_id = $1 ORDER BY created_at DESC, uuid DESC OFFSET $2 LIMIT 1`,
      [merchantId, offset],
    );
    return Buffer.from(JSON.stringify([row.created_at.getTime(), row.uuid])).toString('base64url');
  };
  const deepPage = Math.min(10_000, Math.floor(ROWS / 20) - 1);
  return {
    merchantId,
    integrationId,
    apiKey,
    sample,
    deepPage,
    cursorDeep: await deep((deepPage - 1) * 20 - 1),
    catchUp: await catchUpPoints(merchantId),
  };
}

/**
 * The catch-up walk: `updatedFrom` = the median updated_at (so half the table lies ahead of it), its deepest page
 * (10,000 when the table is large enough) and that page's cursor, as the API would hand it out.
 */
async function catchUpPoints(merchantId) {
  const [{ updated_at: from }] = await query(
    `SELECT updated_at FROM transaction WHERE merchant_id = $1 ORDER BY updated_at, uuid OFFSET $2 LIMIT 1`,
    [merchantId, Math.floor(ROWS / 2)],
  );
  const deepPage = Math.min(10_000, Math.floor(ROWS / 2 / 20) - 1);
  const [row] = await query(
    `SELECT updated_at, uuid FROM transaction WHERE merchant_id = $1 AND updated_at >= $2
      ORDER BY updated_at, uuid OFFSET $3 LIMIT 1`,
    [merchantId, from, (deepPage - 1) * 20 - 1],
  );
  const cursorDeep = Buffer.from(JSON.stringify([row.updated_at.getTime(), row.uuid, 'updatedAt'])).toString(
    'base64url',
  );
  return { from: from.toISOString(), query: `updatedFrom=${from.toISOString()}&order=updatedAt`, deepPage, cursorDeep };
}

/** The benchmark's RabbitMQ (see bench/lib/infra.js), unless BENCH_AMQP_URL names one. */
let broker;

/**
 * BENCH_AMQP_URL as given; otherwise, as for bench:dispatch, a RabbitMQ node of the benchmark's own with the
 * settings the platform ships (BENCH_BROKER=system: the machine's broker), with a vhost `bench-api`.
 */
async function prepareBroker() {
  if (AMQP_GIVEN) return AMQP_GIVEN;
  const { startBroker } = await import('../lib/infra.js');
  broker = await startBroker(VHOST);
  return broker.url;
}

async function waitForHttp(url, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const response = await fetch(url);
      if (response.ok) return;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not come up`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function startApp(amqpUrl) {
  const port = 30_000 + Math.floor(Math.random() * 20_000);
  const child = spawn(
    process.execPath,
    [...APP_NODE_FLAGS, ...EXTRA_NODE_ARGS, new URL('dist/apps/transaction-api/src/main.js', root).pathname],
    {
      cwd: root,
      env: {
        PATH: process.env.PATH,
        NODE_ENV: 'production',
        LOG_LEVEL: 'warn',
        DATABASE_URL,
        AMQP_URL: amqpUrl,
        PLATFORM_TOKEN,
        TRANSACTION_API_PORT: String(port),
        DATABASE_POOL_SIZE: String(POOL_SIZE),
        // The relay is woken in-process by the app's own writes; without polling it leaves the baseline's outbox
        // rows alone (they would otherwise be published, and their cost counted, while the baseline is measured).
        OUTBOX_POLL_MS: '1h',
        // One key at thousands of requests per second: the rate limit stays on (its cost is measured) but never refuses.
        API_RATE_LIMIT: '1000000',
      },
      stdio: ['ignore', 'inherit', 'inherit'],
    },
  );
  children.push(child);
  named.set(child.pid, 'app');
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitForHttp(`${baseUrl}/health/ready`);
  log(`transaction-api up at ${baseUrl}`);
  return baseUrl;
}

async function startBaseline(merchantId) {
  const child = fork(new URL('baseline-server.js', import.meta.url).pathname, [], {
    execArgv: EXTRA_NODE_ARGS,
    env: { PATH: process.env.PATH, DATABASE_URL, MERCHANT_ID: merchantId, POOL_SIZE: String(POOL_SIZE) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  children.push(child);
  named.set(child.pid, 'baseline');
  const { port } = await new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', () => reject(new Error('baseline exited')));
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  log(`baseline up at ${baseUrl}`);
  return baseUrl;
}

async function stopChildren() {
  await Promise.all(
    children.map(
      (child) =>
        new Promise((resolve) => {
          if (child.exitCode !== null) return resolve();
          const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
          child.once('exit', () => {
            clearTimeout(timer);
            resolve();
          });
          child.kill('SIGTERM');
        }),
    ),
  );
}

function cannon(name, url, paths, headers = {}) {
  let next = 0;
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url,
        connections: CONNECTIONS,
        duration: DURATION,
        headers,
        requests: [{ method: 'GET', setupRequest: (request) => ({ ...request, path: paths[next++ % paths.length] }) }],
      },
      (error, result) => {
        if (error) return reject(error);
        if (result.non2xx > 0 || result.errors > 0)
          return reject(new Error(`${name}: ${result.non2xx} non-2xx, ${result.errors} errors`));
        resolve({
          name,
          rps: result.requests.average,
          p50: result.latency.p50,
          p99: result.latency.p99,
          total: result.requests.total,
        });
      },
    );
  });
}

async function walkTo(app, apiKey, pages, filters = '') {
  let cursor = null;
  for (let page = 1; page < pages; page += 1) {
    const response = await fetch(`${app}/v1.17/transactions?limit=20${filters}${cursor ? `&cursor=${cursor}` : ''}`, {
      headers: { 'x-api-key': apiKey },
    });
    if (response.status !== 200) throw new Error(`walking pages: page ${page} answered ${response.status}`);
    cursor = (await response.json()).nextCursor;
  }
  return cursor;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function measure(filled, app, baseline) {
  const key = { 'x-api-key': filled.apiKey };
  log('walking to page 1,000 through the API, newest first and catching up');
  const cursor1000 = await walkTo(app, filled.apiKey, 1_000);
  const catchUp = filled.catchUp;
  const catchUp1000 = await walkTo(app, filled.apiKey, 1_000, `&${catchUp.query}`);
  const deepName = `list, page ${filled.deepPage.toLocaleString('en')}`;
  const catchUpPage = (cursor) => `?limit=20&${catchUp.query}${cursor ? `&cursor=${cursor}` : ''}`;
  const scenarios = [
    [
      'retrieve one',
      filled.sample.map((uuid) => `/v1.17/transactions/${uuid}`),
      filled.sample.map((uuid) => `/transactions/${uuid}`),
    ],
    ['list, page 1', ['/v1.17/transactions?limit=20'], ['/transactions?limit=20']],
    [
      'list, page 1,000',
      [`/v1.17/transactions?limit=20&cursor=${cursor1000}`],
      [`/transactions?limit=20&cursor=${cursor1000}`],
    ],
    [
      deepName,
      [`/v1.17/transactions?limit=20&cursor=${filled.cursorDeep}`],
      [`/transactions?limit=20&cursor=${filled.cursorDeep}`],
    ],
    ...[
      ['catch-up, page 1', null],
      ['catch-up, page 1,000', catchUp1000],
      [`catch-up, page ${catchUp.deepPage.toLocaleString('en')}`, catchUp.cursorDeep],
    ].map(([name, cursor]) => [
      name,
      [`/v1.17/transactions${catchUpPage(cursor)}`],
      [`/transactions${catchUpPage(cursor)}`],
    ]),
  ];
  // Warm both, then ROUNDS rounds of every scenario (app, then baseline) so that a change in the machine's load
  // hits app and baseline, and every page depth, alike; each figure is the median over the rounds.
  await cannon(
    'warm-up',
    app,
    filled.sample.map((uuid) => `/v1.17/transactions/${uuid}`),
    key,
  );
  await cannon(
    'warm-up',
    baseline,
    filled.sample.map((uuid) => `/transactions/${uuid}`),
  );
  const runs = new Map(scenarios.map(([name]) => [name, { app: [], baseline: [] }]));
  // Each round starts at another scenario and alternates whether app or baseline goes first, so that no scenario
  // or side always follows the same predecessor.
  for (let round = 1; round <= ROUNDS; round += 1) {
    for (let i = 0; i < scenarios.length; i += 1) {
      const [name, appPaths, basePaths] = scenarios[(round - 1 + i) % scenarios.length];
      log(`round ${round}/${ROUNDS}: ${name}`);
      const measureApp = async () => runs.get(name).app.push(await cannon(name, app, appPaths, key));
      const measureBaseline = async () => runs.get(name).baseline.push(await cannon(name, baseline, basePaths));
      if (round % 2 === 1) {
        await measureApp();
        await measureBaseline();
      } else {
        await measureBaseline();
        await measureApp();
      }
    }
  }
  const summary = (list) => ({
    rps: median(list.map((r) => r.rps)),
    p50: median(list.map((r) => r.p50)),
    p99: median(list.map((r) => r.p99)),
  });
  const results = scenarios.map(([name]) => ({
    name,
    app: summary(runs.get(name).app),
    baseline: summary(runs.get(name).baseline),
  }));
  return { results, plans: await explainPages(filled, cursor1000, catchUp1000), catchUpQuery: catchUp.query };
}

/**
 * What PostgreSQL does for one page at each depth, newest first and catching up: execution time and buffers
 * touched (EXPLAIN ANALYZE).
 */
async function explainPages(filled, cursor1000, catchUp1000) {
  const decode = (cursor) => JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  const list = (cursor) =>
    cursor
      ? [' AND (created_at, uuid) < ($2, $3) ORDER BY created_at DESC, uuid DESC', [new Date(cursor[0]), cursor[1]]]
      : [' ORDER BY created_at DESC, uuid DESC', []];
  const from = new Date(filled.catchUp.from);
  const catchUp = (cursor) =>
    cursor
      ? [
          ' AND updated_at >= $2 AND (updated_at, uuid) > ($3, $4) ORDER BY updated_at, uuid',
          [from, new Date(cursor[0]), cursor[1]],
        ]
      : [' AND updated_at >= $2 ORDER BY updated_at, uuid', [from]];
  const pages = [
    ['list, page 1', list(null)],
    ['list, page 1,000', list(decode(cursor1000))],
    [`list, page ${filled.deepPage.toLocaleString('en')}`, list(decode(filled.cursorDeep))],
    ['catch-up, page 1', catchUp(null)],
    ['catch-up, page 1,000', catchUp(decode(catchUp1000))],
    [`catch-up, page ${filled.catchUp.deepPage.toLocaleString('en')}`, catchUp(decode(filled.catchUp.cursorDeep))],
  ];
  const plans = [];
  for (const [name, [rest, values]] of pages) {
    const times = [];
    let plan;
    for (let i = 0; i < 5; i += 1) {
      const [row] = await query(
        `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) SELECT * FROM transaction WHERE merchant_id = $1${rest} LIMIT 21`,
        [filled.merchantId, ...values],
      );
      plan = row['QUERY PLAN'][0];
      times.push(plan['Execution Time']);
    }
    const node = plan.Plan.Plans?.[0] ?? plan.Plan;
    plans.push({
      name,
      ms: median(times),
      buffers: (plan.Plan['Shared Hit Blocks'] ?? 0) + (plan.Plan['Shared Read Blocks'] ?? 0),
      node: `${node['Node Type']} using ${node['Index Name']}`,
    });
  }
  return plans;
}

async function writeLoad(target, paths, headers, body) {
  const pool = new HttpPool(target, { connections: CONNECTIONS });
  let operations = 0;
  let failures = 0;
  const latencies = [];
  const deadline = Date.now() + DURATION * 2 * 1000;
  const started = Date.now();
  const worker = async () => {
    while (Date.now() < deadline) {
      const t0 = performance.now();
      const created = await pool.request({ method: 'POST', path: paths.create, headers, body });
      const { uuid } = await created.body.json();
      const t1 = performance.now();
      const moved = await pool.request({
        method: 'POST',
        path: paths.status(uuid),
        headers,
        body: '{"status":"confirmed"}',
      });
      await moved.body.dump();
      const t2 = performance.now();
      if (created.statusCode !== 201 || moved.statusCode !== 200) failures += 1;
      operations += 2;
      latencies.push(t1 - t0, t2 - t1);
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  const elapsed = (Date.now() - started) / 1000;
  await pool.close();
  latencies.sort((a, b) => a - b);
  return {
    operations,
    failures,
    rate: operations / elapsed,
    p50: latencies[Math.floor(latencies.length * 0.5)],
    p99: latencies[Math.floor(latencies.length * 0.99)],
  };
}

/**
 * CPU seconds per 1,000 operations by process from now until `perThousand` is called: the app, the baseline,
 * PostgreSQL, RabbitMQ and this process (the load). Throughput on this host drifts from hour to hour; CPU per
 * operation barely does, so it shows where the app's extra cost over the baseline goes.
 */
function cpuMeter() {
  const before = cpuSnapshot(() => undefined);
  const loadBefore = process.cpuUsage();
  return {
    perThousand(operations) {
      const seconds = cpuSecondsBetween(before, cpuSnapshot(groupBy(named, broker?.pids())));
      const load = process.cpuUsage(loadBefore);
      seconds.load = (load.user + load.system) / 1e6;
      return Object.fromEntries(
        Object.entries(seconds).map(([group, cpu]) => [group, Number(((cpu * 1000) / operations).toFixed(3))]),
      );
    },
  };
}

/** PostgreSQL's write-ahead log per operation from now until `perOperation`: records, full-page images, bytes. */
async function walMeter() {
  const read = async () =>
    (
      await query(
        `SELECT wal_records::float8 AS records, wal_fpi::float8 AS fpi, wal_bytes::float8 AS bytes FROM pg_stat_wal`,
      )
    )[0];
  const before = await read();
  return {
    async perOperation(operations) {
      const after = await read();
      return Object.fromEntries(
        Object.keys(after).map((key) => [key, Number(((after[key] - before[key]) / operations).toFixed(2))]),
      );
    },
  };
}

/** Events written after `before` (an outbox seq): how many, and commit → confirmed-and-marked-sent p50/p99 in ms. */
async function sentTiming(before) {
  const [timing] = await query(
    `SELECT count(*)::int AS events,
            percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM sent_at - created_at) * 1000) AS p50,
            percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM sent_at - created_at) * 1000) AS p99
       FROM outbox_event WHERE seq > $1`,
    [before],
  );
  return timing;
}

async function measureWrites(app, baseline, filled, amqpUrl) {
  log('measuring recording (transaction + status change, with outbox): baseline');
  const body = JSON.stringify({
    merchantId: filled.merchantId,
    integrationId: filled.integrationId,
    status: 'waiting',
    psp: 'Payrexx Direct',
    type: 'e-commerce',
    paymentMethod: 'visa',
    amount: 1990,
    currency: 'CHF',
    authentication: { eci: '05', source: '3ds', version: '2.2.0', flow: 'challenge', cavv: 'x' },
  });
  // Unmeasured warm-up: the first writes after the checkpoint write whole pages to the WAL (full-page images);
  // without it the side measured first would pay them all.
  await writeLoad(
    baseline,
    { create: '/transactions', status: (uuid) => `/transactions/${uuid}/status` },
    { 'content-type': 'application/json' },
    body,
  );
  const bareCpu = cpuMeter();
  const bareWal = await walMeter();
  const bare = await writeLoad(
    baseline,
    { create: '/transactions', status: (uuid) => `/transactions/${uuid}/status` },
    { 'content-type': 'application/json' },
    body,
  );
  bare.cpu = bareCpu.perThousand(bare.operations);
  bare.wal = await bareWal.perOperation(bare.operations);
  // The baseline's outbox rows are not the app's to publish, and their dead index entries are not the app's to
  // step over (autovacuum may be off): the app starts from an empty, vacuumed outbox.
  await query(`DELETE FROM outbox_event`);
  await query(`VACUUM outbox_event`);
  log('measuring recording (transaction + status change, with outbox): app');
  const before = (await query(`SELECT coalesce(max(seq), 0)::bigint AS seq FROM outbox_event`))[0].seq;
  const headers = { authorization: `Bearer ${PLATFORM_TOKEN}`, 'content-type': 'application/json' };
  const appCpu = cpuMeter();
  const appWal = await walMeter();
  const result = await writeLoad(
    app,
    { create: '/internal/transactions', status: (uuid) => `/internal/transactions/${uuid}/status` },
    headers,
    body,
  );
  const recordedAt = Date.now();
  // The relay publishes with confirms; wait until the outbox is empty.
  for (;;) {
    const [{ pending }] = await query(`SELECT count(*)::int AS pending FROM outbox_event WHERE sent_at IS NULL`);
    if (pending === 0) break;
    if (Date.now() - recordedAt > 120_000) throw new Error('the relay did not drain the outbox');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const drainedAt = Date.now();
  // Up to the drained outbox: the relay's publishing is part of recording.
  result.cpu = appCpu.perThousand(result.operations);
  result.wal = await appWal.perOperation(result.operations);
  const timing = await sentTiming(before);
  const steady = await steadyRelay(app, headers, body, amqpUrl);
  return {
    ...result,
    baseline: bare,
    events: timing.events,
    drainAfterLoadMs: drainedAt - recordedAt,
    outboxP50: Number(timing.p50),
    outboxP99: Number(timing.p99),
    steady,
  };
}

/** Relay latency at a steady 200 transactions/s (the dispatcher's design load): commit → broker confirm. */
async function steadyRelay(app, headers, body, amqpUrl) {
  log('measuring the relay at a steady 200 events/s');
  // A consumer of our own on payments.events: arrival time of each transaction.created, by transaction uuid.
  const connection = await amqplib.connect(amqpUrl);
  const channel = await connection.createChannel();
  const { queue } = await channel.assertQueue('', { exclusive: true, autoDelete: true });
  await channel.bindQueue(queue, 'payments.events', 'transaction.created');
  const arrivals = new Map();
  await channel.consume(
    queue,
    (message) => arrivals.set(JSON.parse(message.content.toString()).subjectId, performance.now()),
    { noAck: true },
  );

  const pool = new HttpPool(app, { connections: 16 });
  const before = (await query(`SELECT coalesce(max(seq), 0)::bigint AS seq FROM outbox_event`))[0].seq;
  const answered = new Map();
  const inflight = [];
  const started = Date.now();
  for (let i = 0; Date.now() - started < DURATION * 1000; i += 1) {
    inflight.push(
      pool.request({ method: 'POST', path: '/internal/transactions', headers, body }).then(async (r) => {
        const { uuid } = await r.body.json();
        answered.set(uuid, performance.now());
      }),
    );
    const due = started + (i + 1) * 5;
    const wait = due - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }
  await Promise.all(inflight);
  await pool.close();
  const waitingSince = Date.now();
  for (;;) {
    const [{ pending }] = await query(`SELECT count(*)::int AS pending FROM outbox_event WHERE sent_at IS NULL`);
    if (pending === 0 && [...answered.keys()].every((uuid) => arrivals.has(uuid))) break;
    if (Date.now() - waitingSince > 120_000) throw new Error('not every event reached the consumer within 2 minutes');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await connection.close();
  const timing = await sentTiming(before);
  // From the API's answer (the commit is done) to the event's arrival at a consumer: what the relay adds.
  const delays = [...answered].map(([uuid, at]) => Math.max(0, arrivals.get(uuid) - at)).sort((a, b) => a - b);
  return {
    events: timing.events,
    p50: Number(timing.p50),
    p99: Number(timing.p99),
    arrivalP50: delays[Math.floor(delays.length * 0.5)],
    arrivalP99: delays[Math.floor(delays.length * 0.99)],
  };
}

function render(report) {
  const f = (n, digits = 0) =>
    Number(n).toLocaleString('en', { maximumFractionDigits: digits, minimumFractionDigits: digits });
  const lines = [
    `## Run of ${new Date().toISOString()}`,
    '',
    `${ROWS.toLocaleString('en')} transactions of one merchant; autocannon, ${CONNECTIONS} connections, ${DURATION} s per run, ` +
      `median of ${ROUNDS} rounds; node ${process.version}, ${await_cpus()} CPUs; app and baseline each with a pool of ${POOL_SIZE} PostgreSQL connections.`,
    '',
  ];
  if (report.results.length) {
    lines.push(
      '| scenario | app req/s | app p50 ms | app p99 ms | baseline req/s | baseline p50 ms | baseline p99 ms | app / baseline |',
      '|---|---:|---:|---:|---:|---:|---:|---:|',
      ...report.results.map(
        ({ name, app, baseline }) =>
          `| ${name} | ${f(app.rps)} | ${f(app.p50, 1)} | ${f(app.p99, 1)} | ${f(baseline.rps)} | ${f(baseline.p50, 1)} | ${f(baseline.p99, 1)} | ${f(app.rps / baseline.rps, 2)} |`,
      ),
      '',
    );
    // Per walk: p99 of page 1,000 and of the deepest page against page 1.
    const depth = (walk, label) => {
      const pages = report.results.filter((r) => r.name.startsWith(`${walk}, page `));
      const [page1, page1000, deepest] = [pages[0], pages[1], pages[pages.length - 1]];
      return (
        `${label} p99, page 1,000 / page 1: **${f(page1000.app.p99 / page1.app.p99, 2)}×** (goal ≤ 1.5×); ` +
        `${deepest.name.replace(`${walk}, `, '')} / page 1: ${f(deepest.app.p99 / page1.app.p99, 2)}×.`
      );
    };
    lines.push(
      depth('list', 'List'),
      depth('catch-up', `Catch-up walk (\`${report.catchUpQuery}&limit=20\`)`),
      '',
      'PostgreSQL for one page (EXPLAIN ANALYZE, median of 5):',
      '',
      '| page | execution ms | buffers | plan |',
      '|---|---:|---:|---|',
      ...report.plans.map((plan) => `| ${plan.name} | ${f(plan.ms, 3)} | ${plan.buffers} | ${plan.node} |`),
      '',
    );
  }
  if (report.write) {
    const w = report.write;
    lines.push(
      `Recording through the platform API (create + status change, each with its outbox event, ${CONNECTIONS} concurrent clients, ${DURATION * 2} s): ` +
        `**${f(w.rate)} operations/s** (goal ≥ 2,000/s), p50 ${f(w.p50, 1)} ms, p99 ${f(w.p99, 1)} ms, ${w.failures} failures. ` +
        `Bare baseline (node:http + pg, the same statements): ${f(w.baseline.rate)} operations/s, p50 ${f(w.baseline.p50, 1)} ms, p99 ${f(w.baseline.p99, 1)} ms ` +
        `(app / baseline ${f(w.rate / w.baseline.rate, 2)}).`,
      '',
      'CPU seconds per 1,000 operations, by process (the app includes its relay publishing every event):',
      '',
      '| | app or baseline | PostgreSQL | RabbitMQ | load generator | total |',
      '|---|---:|---:|---:|---:|---:|',
      ...[
        ['app', w.cpu, w.cpu.app],
        ['baseline', w.baseline.cpu, w.baseline.cpu.baseline],
      ].map(
        ([name, cpu, own]) =>
          `| ${name} | ${f(own, 3)} | ${f(cpu.postgresql ?? 0, 3)} | ${f(cpu.rabbitmq ?? 0, 3)} | ${f(cpu.load, 3)} | ` +
          `${f(
            Object.values(cpu).reduce((a, b) => a + b, 0),
            3,
          )} |`,
      ),
      '',
      `PostgreSQL write-ahead log per operation: app ${f(w.wal.records, 1)} records, ${f(w.wal.fpi, 2)} full-page images, ` +
        `${f(w.wal.bytes)} bytes; baseline ${f(w.baseline.wal.records, 1)} records, ${f(w.baseline.wal.fpi, 2)} full-page images, ` +
        `${f(w.baseline.wal.bytes)} bytes.`,
      '',
      `Outbox under that load: ${f(w.events)} events published with confirms; commit → confirmed p50 ${f(w.outboxP50, 1)} ms, p99 ${f(w.outboxP99, 1)} ms; ` +
        `backlog drained ${f(w.drainAfterLoadMs)} ms after the load stopped. At a steady 200 transactions/s: ${f(w.steady.events)} events, ` +
        `commit → confirmed (sent_at) p50 ${f(w.steady.p50, 1)} ms, p99 ${f(w.steady.p99, 1)} ms; ` +
        `API answer → arrival at a consumer of payments.events **p50 ${f(w.steady.arrivalP50, 1)} ms, p99 ${f(w.steady.arrivalP99, 1)} ms**.`,
      '',
    );
  }
  return lines.join('\n');
}

function await_cpus() {
  return globalThis.navigator?.hardwareConcurrency ?? '?';
}

// Referenced on purpose: it also keeps the process alive, so a stalled step ends here with a message, not silently.
const timeout = setTimeout(() => {
  log('benchmark took longer than 20 minutes: stopping');
  void stopChildren().finally(() => process.exit(2));
}, 20 * 60_000);
process.on('exit', (code) => {
  if (code === 0 && !finished) log('exited before finishing');
});
let finished = false;

main().then(
  () => {
    finished = true;
    clearTimeout(timeout);
    process.exit(0);
  },
  async (error) => {
    log(`failed: ${error.stack ?? error}`);
    await stopChildren();
    process.exit(1);
  },
);
