// `npm run bench:retention` — the delivery tables' retention under load (docs/benchmarks-retention.md).
//
// 1. fill: BENCH_DAYS (30) simulated days of deliveries and log entries, BENCH_LOG_ROWS (10,000,000) log entries in
//    all (1.25 per delivery: every fourth delivery failed once and was repeated), written straight into the day
//    partitions with INSERT … SELECT generate_series, ids version-7 UUIDs of their rows' times, bodies rendered as
//    the fan-out renders them; then VACUUM ANALYZE (the state of days long written). Storage per delivery and per
//    log entry: the partitions' total size (heap, TOAST and indexes) over their rows.
// 2. load: one webhook-dispatcher delivering BENCH_RATE (1,000) events/s to one webhook on a loopback receiver (its
//    own process), and one webhook-config whose log API a reader pages at BENCH_READ_RATE (50) pages/s (the first
//    page, then two more through the cursor, of a webhook holding a share of the filled log).
// 3. drop: after BENCH_BEFORE_SECONDS (20) of load, the dispatcher's partition maintenance (its own class, in this
//    process, on a session of the dispatcher's role) removes the oldest day; the load goes on BENCH_AFTER_SECONDS
//    (10). BENCH_DROPS (5) days are dropped so, one after another. Reported: each run's duration, the delivery latency
//    (event published → receiver) and the log-page latency, p50/p99 before each drop and from its start on (each
//    drop's, with its p99 by half second, and all drops' together), and the tables' sizes before and after.
// Everything runs on 127.0.0.1 against the machine's PostgreSQL (database bench_retention, dropped afterwards) and a
// RabbitMQ node of the benchmark's own (bench/lib/infra.js). Results: printed, and written to
// bench/results/retention.json. Check it at a small scale first: BENCH_LOG_ROWS=300000 npm run bench:retention.
import { spawnSync } from 'node:child_process';
import { startReceiver } from '../lib/receiver.js';
import { randomUUID, randomUUIDv7 } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import pg from 'pg';

const LOG_ROWS = Number(process.env.BENCH_LOG_ROWS ?? 10_000_000);
const DAYS = Number(process.env.BENCH_DAYS ?? 30);
const RATE = Number(process.env.BENCH_RATE ?? 1_000);
const READ_RATE = Number(process.env.BENCH_READ_RATE ?? 50);
const BEFORE_SECONDS = Number(process.env.BENCH_BEFORE_SECONDS ?? 20);
const AFTER_SECONDS = Number(process.env.BENCH_AFTER_SECONDS ?? 10);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 10);
/** Days dropped, one after another (each measured on its own: BEFORE_SECONDS, the drop, AFTER_SECONDS). */
const DROPS = Number(process.env.BENCH_DROPS ?? 5);
/** Webhooks the filled log is spread over (one merchant's); the reader pages the first. */
const FILL_WEBHOOKS = Number(process.env.BENCH_FILL_WEBHOOKS ?? 20);
const DAY = 86_400_000;
const TOKEN = 'bench-platform-token-0123456789';
const DISPATCHER_PORT = 3932;
const CONFIG_PORT = 3931;

if (process.env.BENCH_SKIP_BUILD !== '1') {
  const build = spawnSync('nx', ['run-many', '-t', 'build', '--output-style=static'], { stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

const { BENCH_KEY, freshInfrastructure, startApp, waitReady, stopChild, percentile, round } =
  await import('../lib/infra.js');
const { encodePayload, generateWebhookSecret, renderWebhookPayload, sampleSubjectOf } =
  await import('../../dist/libs/domain/src/index.js');
const { PlatformMetrics, SecretCipher } = await import('../../dist/libs/platform/src/index.js');
const { AmqpClient, EXCHANGES, publishWebhookChanged } = await import('../../dist/libs/messaging/src/index.js');
const { dataSourceOptions, WEBHOOK_DISPATCHER_DATABASE } = await import('../../dist/libs/persistence/src/index.js');
const { loadWebhookDispatcherConfig } =
  await import('../../dist/apps/webhook-dispatcher/src/config/webhook-dispatcher.config.js');
const { PartitionMaintenance } =
  await import('../../dist/apps/webhook-dispatcher/src/retention/partition-maintenance.service.js');
const { PartitionMaintenanceMetrics } =
  await import('../../dist/apps/webhook-dispatcher/src/retention/partition-maintenance.metrics.js');
const { DataSource } = await import('typeorm');
const { Pool: HttpPool } = await import('undici');

const infra = await freshInfrastructure('retention');
const db = new pg.Pool({ connectionString: infra.databaseUrl, max: 4 });
const cipher = new SecretCipher(Buffer.from(BENCH_KEY, 'base64'));
const results = {
  machine: { cores: (await import('node:os')).cpus().length, node: process.version },
  settings: { LOG_ROWS, DAYS, RATE, READ_RATE, BEFORE_SECONDS, AFTER_SECONDS, FILL_WEBHOOKS, DROPS },
  date: new Date().toISOString(),
};
const children = [];

const today = Math.floor(Date.now() / DAY) * DAY;
/** The filled days: the DAYS days before today; the oldest is the one dropped. */
const dayStart = (index) => today - (DAYS - index) * DAY;
const dayName = (time) => new Date(time).toISOString().slice(0, 10).replaceAll('-', '');

async function createMerchant(name) {
  const id = randomUUID();
  await db.query('INSERT INTO merchant (id, name) VALUES ($1, $2)', [id, name]);
  return id;
}

async function createWebhook(merchantId, url, events, amqp) {
  const id = randomUUID();
  await db.query(
    `INSERT INTO webhook (id, merchant_id, name, url, content_type, version, retry_on_error, events)
     VALUES ($1, $2, 'bench', $3, 'json', '2026-08-20', true, $4)`,
    [id, merchantId, url, events],
  );
  await db.query('INSERT INTO webhook_secret (id, webhook_id, ciphertext) VALUES ($1, $2, $3)', [
    randomUUID(),
    id,
    cipher.encrypt(generateWebhookSecret(), id),
  ]);
  await publishWebhookChanged(amqp, { webhookId: id, merchantId }); // as webhook-config does
  return id;
}

function transaction(uuid, at) {
  return sampleSubjectOf('transaction', { id: uuid, at, integrationId: null, referenceId: `order-${uuid.slice(0, 8)}` })
    .transaction;
}

/** Sizes of the partitioned tables: rows, bytes in all (heap, TOAST, indexes), of which indexes, partitions. */
async function sizes() {
  const { rows } = await db.query(
    `SELECT t.name,
            (SELECT sum(pg_total_relation_size(relid))::float8 FROM pg_partition_tree(t.name::regclass)) AS bytes,
            (SELECT sum(pg_indexes_size(relid))::float8 FROM pg_partition_tree(t.name::regclass)) AS "indexBytes",
            (SELECT count(*) FROM pg_partition_tree(t.name::regclass) WHERE isleaf)::int AS partitions
       FROM unnest(ARRAY['delivery.webhook_delivery', 'delivery.webhook_log']) AS t(name)`,
  );
  const counts = (
    await db.query(`SELECT (SELECT count(*) FROM webhook_delivery)::float8 AS webhook_delivery,
                           (SELECT count(*) FROM webhook_log)::float8 AS webhook_log`)
  ).rows[0];
  const table = (i, name) => ({
    rows: counts[name],
    mb: round(rows[i].bytes / 1024 / 1024, 1),
    indexMb: round(rows[i].indexBytes / 1024 / 1024, 1),
    bytes: rows[i].bytes,
    partitions: rows[i].partitions,
  });
  return { webhook_delivery: table(0, 'webhook_delivery'), webhook_log: table(1, 'webhook_log') };
}

try {
  const amqp = new AmqpClient({ url: infra.amqpUrl, name: 'bench', topology: { retryDelaysMs: [] } });
  await amqp.waitForConnect();
  const { child: receiver, port: receiverPort, ask } = await startReceiver();
  children.push(receiver);

  // ---- 1. fill ---------------------------------------------------------------------------------------------------
  const readerMerchant = await createMerchant('Bench reader');
  const fillHooks = [];
  // Payout webhooks: the live transaction events do not reach them.
  for (let i = 0; i < FILL_WEBHOOKS; i += 1) {
    fillHooks.push(await createWebhook(readerMerchant, `http://127.0.0.1:${receiverPort}/fill/${i}`, '{payout}', amqp));
  }
  const body = encodePayload(
    'json',
    renderWebhookPayload('2026-08-20', {
      type: 'transaction',
      transaction: transaction(randomUUID(), new Date().toISOString()),
    }),
  ).body;
  // A version-7 uuid of `ts`: 12 hex digits of its Unix ms, then a random uuid's version-4 tail with a 7.
  await db.query(`CREATE FUNCTION public.bench_uuid_v7(ts timestamptz) RETURNS uuid LANGUAGE sql VOLATILE AS $$
    SELECT (lpad(to_hex((extract(epoch FROM ts) * 1000)::bigint), 12, '0') || '7'
            || substr(replace(gen_random_uuid()::text, '-', ''), 14, 19))::uuid $$`);
  const deliveriesPerDay = Math.round(LOG_ROWS / 1.25 / DAYS);
  const fillStarted = performance.now();
  for (let index = 0; index < DAYS; index += 1) {
    const start = new Date(dayStart(index));
    const suffix = dayName(start.getTime());
    // Deliveries spread over the day; every fourth failed (500) and was repeated a minute later (200).
    await db.query(
      `INSERT INTO delivery.webhook_delivery_p${suffix}
         (id, webhook_id, merchant_id, event_id, event_type, subject, url, content_type, version, retry_on_error, body,
          created_at)
       SELECT bench_uuid_v7(t), ($2::uuid[])[1 + i % $3], $4, bench_uuid_v7(t), 'transaction',
              jsonb_build_object('psp', 'Payrexx Direct', 'type', 'e-commerce', 'uuid', gen_random_uuid()),
              'https://shop.example.com/webhooks/payments', 'json', '2026-08-20', true, convert_to($5, 'UTF8'), t
         FROM generate_series(0, $6 - 1) AS i,
              LATERAL (SELECT $1::timestamptz + (i * 86399.0 / $6) * interval '1 second' AS t) AS at`,
      [start, fillHooks, FILL_WEBHOOKS, readerMerchant, body, deliveriesPerDay],
    );
    for (const [attempt, filter, offset, status, excerpt] of [
      [
        1,
        'true',
        "interval '0'",
        'CASE WHEN d.n % 4 = 0 THEN 500 ELSE 200 END',
        "CASE WHEN d.n % 4 = 0 THEN 'Internal Server Error: upstream shop database timeout' ELSE 'ok' END",
      ],
      [2, 'd.n % 4 = 0', "interval '1 minute'", '200', "'ok'"],
    ]) {
      await db.query(
        `INSERT INTO delivery.webhook_log_p${suffix}
           (id, delivery_id, webhook_id, attempt, event_type, event_id, request, outcome, status, duration_ms, error,
            response_excerpt, manual, created_at, next_attempt_at)
         SELECT bench_uuid_v7(d.created_at + ${offset}), d.id, d.webhook_id, ${attempt}, 'transaction', d.event_id,
                jsonb_build_object('url', d.url, 'contentType', 'json', 'version', '2026-08-20',
                                   'psp', 'Payrexx Direct', 'type', 'e-commerce', 'uuid', d.subject->>'uuid',
                                   'referenceId', 'order-' || d.n),
                CASE WHEN ${status} BETWEEN 200 AND 299 THEN 'delivered' ELSE 'failed' END, ${status}, 40 + (d.n % 200), NULL, ${excerpt}, false, d.created_at + ${offset},
                CASE WHEN ${attempt} = 1 AND d.n % 4 = 0 THEN d.created_at + interval '1 minute' END
           FROM (SELECT *, row_number() OVER () AS n FROM delivery.webhook_delivery_p${suffix}) AS d
          WHERE ${filter} AND d.created_at + ${offset} < $1::timestamptz + interval '1 day'`,
        [start],
      );
    }
    process.stdout.write(`\rfilled day ${index + 1}/${DAYS}`);
  }
  await db.query('DROP FUNCTION public.bench_uuid_v7(timestamptz)');
  // What is older than the filled days (the migration's empty partitions) goes first: the measured run drops one day.
  await db.query(`DO $$ DECLARE p record; BEGIN
    FOR p IN SELECT parent, name FROM delivery.day_partitions() WHERE to_time <= '${new Date(dayStart(0)).toISOString()}' LOOP
      EXECUTE format('DROP TABLE delivery.%I', p.name);
    END LOOP; END $$`);
  await db.query('VACUUM ANALYZE delivery.webhook_delivery, delivery.webhook_log');
  results.fill = { seconds: round((performance.now() - fillStarted) / 1000, 0) };
  const before = await sizes();
  const perRow = (table) => round(before[table].bytes / before[table].rows, 0);
  results.storage = {
    bytesPerDelivery: perRow('webhook_delivery'),
    bytesPerLogEntry: perRow('webhook_log'),
    bodyBytes: Buffer.byteLength(body),
  };
  results.sizesBefore = before;
  console.log(`\nfilled in ${results.fill.seconds} s:`, JSON.stringify(before), JSON.stringify(results.storage));

  // ---- 2. load ---------------------------------------------------------------------------------------------------
  const env = {
    DATABASE_URL: infra.databaseUrl,
    AMQP_URL: infra.amqpUrl,
    SECRET_ENCRYPTION_KEY: BENCH_KEY,
    PLATFORM_TOKEN: TOKEN,
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    // Longer than the filled days: the dispatcher's own start-up run drops none of them; the measured run does.
    WEBHOOK_LOG_RETENTION: `${DAYS + 2}d`,
  };
  const dispatcher = startApp('webhook-dispatcher', { ...env, WEBHOOK_DISPATCHER_PORT: String(DISPATCHER_PORT) });
  const config = startApp('webhook-config', { ...env, WEBHOOK_CONFIG_PORT: String(CONFIG_PORT) });
  children.push(dispatcher, config);
  await waitReady(`http://127.0.0.1:${DISPATCHER_PORT}/health/ready`);
  await waitReady(`http://127.0.0.1:${CONFIG_PORT}/health/ready`);

  const liveMerchant = await createMerchant('Bench live');
  await createWebhook(liveMerchant, `http://127.0.0.1:${receiverPort}/live`, '{transaction}', amqp);
  await new Promise((resolve) => setTimeout(resolve, 500)); // the dispatchers' caches hear of it

  // A backend session of the reader merchant.
  const http = new HttpPool(`http://127.0.0.1:${CONFIG_PORT}`, { connections: 8 });
  const email = `reader-${randomUUID().slice(0, 8)}@example.com`;
  const password = 'bench-reader-password-1';
  const created = await http.request({
    path: `/internal/merchants/${readerMerchant}/users`,
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  if (created.statusCode !== 201) throw new Error(`backend user: ${created.statusCode} ${await created.body.text()}`);
  await created.body.dump();
  const signIn = await http.request({
    path: '/api/session',
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  if (signIn.statusCode !== 200) throw new Error(`sign-in: ${signIn.statusCode} ${await signIn.body.text()}`);
  await signIn.body.dump();
  const cookie = [signIn.headers['set-cookie']].flat()[0].split(';')[0];

  /** Published events: [uuid, published at (epoch ms)]. */
  const published = new Map();
  /** Log pages: [started at (epoch ms), ms]. */
  const pages = [];
  /** Log pages filtered by an order's referenceId (the log search), interleaved with the unfiltered ones. */
  const filteredPages = [];
  let loading = true;
  const load = (async () => {
    const tick = 20;
    for (let next = performance.now(); loading; next += tick) {
      const events = Array.from({ length: Math.round((RATE * tick) / 1000) }, () => {
        const uuid = randomUUID();
        const at = new Date().toISOString();
        published.set(uuid, performance.timeOrigin + performance.now());
        return {
          v: 1,
          id: randomUUIDv7(),
          type: 'transaction.created',
          category: 'transaction',
          merchantId: liveMerchant,
          integrationId: null,
          occurredAt: at,
          subjectId: uuid,
          data: transaction(uuid, at),
        };
      });
      await Promise.all(events.map((e) => amqp.publish(EXCHANGES.events, e.type, Buffer.from(JSON.stringify(e)))));
      const wait = next + tick - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    }
  })();
  const read = (async () => {
    const every = 1000 / READ_RATE;
    let cursor = null;
    let depth = 0;
    for (let i = 0, next = performance.now(); loading; i += 1, next += every) {
      // Every other page: an order's entries, found by its referenceId (each day's deliveries number their orders
      // from 1, so one order's entries spread over every filled day: the search reads all the days' partitions).
      const filtered = i % 2 === 1;
      const query = filtered
        ? `referenceId=order-${1 + Math.floor(Math.random() * 1_000)}`
        : cursor
          ? `cursor=${cursor}`
          : '';
      const started = performance.timeOrigin + performance.now();
      const response = await http.request({
        path: `/api/webhooks/${fillHooks[0]}/logs?limit=50${query ? `&${query}` : ''}`,
        method: 'GET',
        headers: { cookie },
      });
      const page = await response.body.json();
      if (response.statusCode !== 200) throw new Error(`log page: ${response.statusCode} ${JSON.stringify(page)}`);
      (filtered ? filteredPages : pages).push([started, performance.timeOrigin + performance.now() - started]);
      if (!filtered) {
        depth = page.nextCursor && depth < 2 ? depth + 1 : 0;
        cursor = depth === 0 ? null : page.nextCursor;
      }
      const wait = next + every - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    }
  })();

  // ---- 3. drop ---------------------------------------------------------------------------------------------------
  await new Promise((resolve) => setTimeout(resolve, WARMUP_SECONDS * 1000));
  const maintenanceDb = await new DataSource(
    dataSourceOptions({
      url: infra.databaseUrl,
      poolSize: 2,
      applicationName: 'bench-maintenance',
      ...WEBHOOK_DISPATCHER_DATABASE,
    }),
  ).initialize();
  const drops = [];
  for (let k = 0; k < DROPS; k += 1) {
    await new Promise((resolve) => setTimeout(resolve, BEFORE_SECONDS * 1000));
    // The dispatcher's maintenance with a retention that ends right after the k-th oldest filled day.
    const maintenanceConfig = loadWebhookDispatcherConfig({
      NODE_ENV: 'development',
      WEBHOOK_LOG_RETENTION: `${DAYS - 1}d`,
    });
    const maintenance = new PartitionMaintenance(
      maintenanceDb,
      maintenanceConfig,
      new PartitionMaintenanceMetrics(new PlatformMetrics(), maintenanceConfig, maintenanceDb),
    );
    // `now` such that the cutoff (now − retention − 1 h) falls a minute after that day's end.
    const now = dayStart(1 + k) + (DAYS - 1) * DAY + 3_600_000 + 60_000;
    const started = performance.timeOrigin + performance.now();
    const report = await maintenance.run(now);
    const ms = performance.timeOrigin + performance.now() - started;
    console.log(`maintenance run ${k + 1}: ${round(ms, 1)} ms`, JSON.stringify(report));
    drops.push({ started, ms: round(ms, 1), report });
    await new Promise((resolve) => setTimeout(resolve, AFTER_SECONDS * 1000));
  }
  await maintenanceDb.destroy();
  loading = false;
  await Promise.all([load, read]);
  await new Promise((resolve) => setTimeout(resolve, 3_000)); // the last deliveries arrive

  const arrivals = (await ask('arrivals')).arrivals;
  const deliveries = [];
  for (const [uuid, at] of arrivals) {
    const sent = published.get(uuid);
    if (sent !== undefined) deliveries.push([sent, at - sent]);
  }
  const stats = (samples, from, to) => {
    const ms = samples
      .filter(([at]) => at >= from && at < to)
      .map(([, took]) => took)
      .sort((a, b) => a - b);
    return { count: ms.length, p50: round(percentile(ms, 50), 1), p99: round(percentile(ms, 99), 1) };
  };
  /** Before (BEFORE_SECONDS up to the drop) and during (from its start, AFTER_SECONDS) one drop. */
  const around = (samples, dropStarted) => {
    const before = stats(samples, dropStarted - BEFORE_SECONDS * 1000, dropStarted);
    const during = stats(samples, dropStarted, dropStarted + AFTER_SECONDS * 1000);
    return { before, during, p99Ratio: round(during.p99 / before.p99, 2) };
  };
  results.drops = drops.map(({ started, ms, report }) => ({
    ms,
    report,
    deliveryLatencyMs: around(deliveries, started),
    logPageMs: around(pages, started),
    filteredLogPageMs: around(filteredPages, started),
    // The delivery latency's p99 by half second, from 2 s before the drop to AFTER_SECONDS after: when it rises.
    timeline: Array.from({ length: 4 + AFTER_SECONDS * 2 }, (_, i) => {
      const from = started - 2_000 + i * 500;
      const { count, p99 } = stats(deliveries, from, from + 500);
      return { at: round((from - started) / 1000, 1), count, p99 };
    }),
  }));
  // All drops together: every delivery published in a before window against every one published in a during window
  // (with several drops, a p99 over many more samples than one window's, so one stray spike weighs less).
  const pooled = (samples) => {
    const within = (offsetFrom, offsetTo) =>
      samples.filter(([at]) => drops.some(({ started }) => at >= started + offsetFrom && at < started + offsetTo));
    const before = stats(within(-BEFORE_SECONDS * 1000, 0), -Infinity, Infinity);
    const during = stats(within(0, AFTER_SECONDS * 1000), -Infinity, Infinity);
    return { before, during, p99Ratio: round(during.p99 / before.p99, 2) };
  };
  Object.assign(results, {
    drop: { ms: results.drops[0].ms, report: results.drops[0].report },
    deliveryLatencyMs: pooled(deliveries),
    logPageMs: pooled(pages),
    filteredLogPageMs: pooled(filteredPages),
  });
  for (const [k, drop] of results.drops.entries()) {
    console.log(
      `drop ${k + 1}: ${drop.ms} ms; delivery p99 ${drop.deliveryLatencyMs.before.p99} → ${drop.deliveryLatencyMs.during.p99} ms ` +
        `(${drop.deliveryLatencyMs.p99Ratio}×); log page p99 ${drop.logPageMs.before.p99} → ${drop.logPageMs.during.p99} ms; ` +
        `p99 by half second from −2 s: ${drop.timeline.map((t) => Math.round(t.p99)).join(' ')}`,
    );
  }
  const { deliveryLatencyMs: d, logPageMs: l, filteredLogPageMs: f } = results;
  console.log(
    `all ${DROPS} drops: delivery p99 ${d.before.p99} → ${d.during.p99} ms (${d.p99Ratio}×, ${d.before.count} / ` +
      `${d.during.count} deliveries); log page p99 ${l.before.p99} → ${l.during.p99} ms (${l.p99Ratio}×); ` +
      `filtered ${f.before.p99} → ${f.during.p99} ms (${f.p99Ratio}×)`,
  );
  results.delivered = { published: published.size, arrived: deliveries.length };
  results.sizesAfter = await sizes();
  await http.close();
  await amqp.close();

  console.log(JSON.stringify(results, null, 2));
  mkdirSync(new URL('../results/', import.meta.url), { recursive: true });
  writeFileSync(new URL('../results/retention.json', import.meta.url), `${JSON.stringify(results, null, 2)}\n`);
} finally {
  await Promise.all(children.map(stopChild));
  await db.end();
  // BENCH_KEEP_DATABASE=1 leaves bench_retention in place, to look at it afterwards.
  if (process.env.BENCH_KEEP_DATABASE === '1') infra.stopBroker();
  else await infra.cleanup();
}
