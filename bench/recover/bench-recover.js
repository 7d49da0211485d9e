// `npm run bench:recover` — a recover at the size of a bad day (docs/benchmarks-recover.md).
//
// 1. fill: BENCH_DELIVERIES (1,000,000) deliveries of one webhook spread over BENCH_DAYS (5) days, each logged as not
//    sent (85 %, `skipped`: the webhook was disabled) or failed (15 %), written straight into the day partitions as the
//    dispatcher's log writer leaves them (`recoverable`), each with a body of its own transaction (so the receiver can
//    tell them apart); then VACUUM ANALYZE.
// 2. run: transaction-api, webhook-config and BENCH_DISPATCHERS (2) dispatchers as `npm start` runs them; a neighbour
//    merchant's healthy webhook gets BENCH_NEIGHBOUR_RATE (20) payments a second through the platform API, the whole
//    time. After BENCH_BEFORE_SECONDS (20) the merchant presses "Send again" (POST /api/webhooks/{id}/recover, the
//    answer timed: the count) — twice, as people do.
// 3. report: the count's time, the queue rate (deliveries queued by the job a second), the delivery rate (recovered
//    arrivals a second), repeats (webhook-ids that arrived more than once: 0 without faults), and the neighbour's
//    API answer → arrival p99 before and during the recover. BENCH_KILL=1: the dispatcher holding the recover is
//    SIGKILLed at a third of it and another is started; repeats are then the attempts it had made and not logged.
// Everything runs on 127.0.0.1 (database bench_recover, dropped afterwards; a RabbitMQ node of its own). Results:
// printed, and written to bench/results/recover.json. Small first: BENCH_DELIVERIES=20000 npm run bench:recover.
import { PLATFORM_TOKEN, platformApi } from '../lib/platform-api.js';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import pg from 'pg';
import { startReceiver } from '../lib/receiver.js';

const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 1_000_000);
const DAYS = Number(process.env.BENCH_DAYS ?? 5);
const DISPATCHERS = Number(process.env.BENCH_DISPATCHERS ?? 2);
const NEIGHBOUR_RATE = Number(process.env.BENCH_NEIGHBOUR_RATE ?? 20);
const BEFORE_SECONDS = Number(process.env.BENCH_BEFORE_SECONDS ?? 20);
const KILL = process.env.BENCH_KILL === '1';
/** The recover must end within this (then the run reports what it has). */
const MAX_SECONDS = Number(process.env.BENCH_MAX_SECONDS ?? 1_200);
const DAY = 86_400_000;
const TOKEN = PLATFORM_TOKEN;
const API_PORT = 3951;
const CONFIG_PORT = 3952;
const DISPATCHER_PORTS = Array.from({ length: DISPATCHERS + 1 }, (_, i) => 3953 + i);

if (process.env.BENCH_SKIP_BUILD !== '1') {
  const build = spawnSync('nx', ['run-many', '-t', 'build', '--output-style=static'], { stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

const { BENCH_KEY, freshInfrastructure, startApp, waitReady, stopChild, percentile, round } =
  await import('../lib/infra.js');
const { encodePayload, generateWebhookSecret, renderWebhookPayload, sampleSubjectOf } =
  await import('../../dist/libs/domain/src/index.js');
const { SecretCipher } = await import('../../dist/libs/platform/src/index.js');
const { Pool: HttpPool } = await import('undici');
const { cpuSecondsBetween, cpuSnapshot, groupBy } = await import('../lib/cpu.js');

const infra = await freshInfrastructure('recover');
const db = new pg.Pool({ connectionString: infra.databaseUrl, max: 4 });
const cipher = new SecretCipher(Buffer.from(BENCH_KEY, 'base64'));
const results = {
  machine: { cores: (await import('node:os')).cpus().length, node: process.version },
  settings: { DELIVERIES, DAYS, DISPATCHERS, NEIGHBOUR_RATE, BEFORE_SECONDS, KILL },
  date: new Date().toISOString(),
};
const children = [];
const dispatchers = [];

async function createWebhook(merchantId, url, events) {
  const id = randomUUID();
  await db.query(
    `INSERT INTO webhook (id, merchant_id, name, url, content_type, version, retry_on_error, events)
     VALUES ($1, $2, 'bench', $3, 'json', '2026-08-20', false, $4)`,
    [id, merchantId, url, events],
  );
  await db.query('INSERT INTO webhook_secret (id, webhook_id, ciphertext) VALUES ($1, $2, $3)', [
    randomUUID(),
    id,
    cipher.encrypt(generateWebhookSecret(), id),
  ]);
  return id;
}

const seconds = (from) => (performance.now() - from) / 1000;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

try {
  // The shop and the neighbour are two receivers (processes) of their own, as two merchants' servers are.
  const { child: receiver, port: receiverPort, ask: askShop } = await startReceiver();
  const { child: neighbourReceiver, port: neighbourPort, ask: askNeighbour } = await startReceiver();
  children.push(receiver, neighbourReceiver);
  const env = {
    DATABASE_URL: infra.databaseUrl,
    AMQP_URL: infra.amqpUrl,
    SECRET_ENCRYPTION_KEY: BENCH_KEY,
    PLATFORM_TOKEN: TOKEN,
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  };
  const api = startApp('transaction-api', { ...env, TRANSACTION_API_PORT: String(API_PORT) });
  const config = startApp('webhook-config', { ...env, WEBHOOK_CONFIG_PORT: String(CONFIG_PORT) });
  children.push(api, config);
  const startDispatcher = (i) => {
    const child = startApp('webhook-dispatcher', { ...env, WEBHOOK_DISPATCHER_PORT: String(DISPATCHER_PORTS[i]) });
    children.push(child);
    dispatchers.push(child);
    return child;
  };
  for (let i = 0; i < DISPATCHERS; i += 1) startDispatcher(i);
  await waitReady(`http://127.0.0.1:${API_PORT}/health/ready`);
  await waitReady(`http://127.0.0.1:${CONFIG_PORT}/health/ready`);
  for (let i = 0; i < DISPATCHERS; i += 1) await waitReady(`http://127.0.0.1:${DISPATCHER_PORTS[i]}/health/ready`);

  const apiClient = platformApi(`http://127.0.0.1:${API_PORT}`);
  const platform = apiClient.post;

  // ---- 1. fill ---------------------------------------------------------------------------------------------------
  const shop = await platform('/internal/merchants', { name: 'Shop that was down' });
  const hook = await createWebhook(shop.id, `http://127.0.0.1:${receiverPort}/recovered`, '{transaction}');
  const now = new Date().toISOString();
  const template = encodePayload(
    'json',
    renderWebhookPayload(
      '2026-08-20',
      sampleSubjectOf('transaction', {
        id: '00000000-0000-4000-8000-000000000000',
        at: now,
        integrationId: null,
        referenceId: 'order-recovered',
      }),
    ),
  ).body;
  await db.query(`CREATE FUNCTION public.bench_uuid_v7(ts timestamptz) RETURNS uuid LANGUAGE sql VOLATILE AS $$
    SELECT (lpad(to_hex((extract(epoch FROM ts) * 1000)::bigint), 12, '0') || '7'
            || substr(replace(gen_random_uuid()::text, '-', ''), 14, 19))::uuid $$`);
  const fillStarted = performance.now();
  const fillFrom = Date.now() - DAYS * DAY + 60_000;
  const perDay = Math.ceil(DELIVERIES / DAYS);
  for (let day = 0; day < DAYS; day += 1) {
    const n = Math.min(perDay, DELIVERIES - day * perDay);
    await db.query(
      `WITH d AS (
         INSERT INTO delivery.webhook_delivery
           (id, webhook_id, merchant_id, event_id, event_type, subject, url, content_type, version, retry_on_error,
            body, created_at)
         SELECT bench_uuid_v7(t), $2, $3, bench_uuid_v7(t), 'transaction',
                jsonb_build_object('psp', 'Payrexx Direct', 'type', 'e-commerce', 'uuid', u, 'referenceId', 'order-recovered'),
                $4, 'json', '2026-08-20', false, convert_to(replace($5, '00000000-0000-4000-8000-000000000000', u::text), 'UTF8'),
                t
           FROM generate_series(0, $6 - 1) AS i,
                LATERAL (SELECT $1::timestamptz + (i * ${(DAY - 120_000) / 1000}.0 / $6) * interval '1 second' AS t,
                                gen_random_uuid() AS u) AS x
         RETURNING id, webhook_id, event_id, created_at, subject),
       o AS (
         INSERT INTO delivery.webhook_delivery_outcome (delivery_id, created_at, webhook_id, recoverable, outcome_at)
         SELECT id, created_at, webhook_id, true, created_at FROM d)
       INSERT INTO delivery.webhook_log (id, delivery_id, webhook_id, attempt, event_type, event_id, request, outcome,
                                         status, duration_ms, error, created_at)
       SELECT bench_uuid_v7(d.created_at), d.id, $2, 1, 'transaction', d.event_id,
              jsonb_build_object('url', $4::text, 'contentType', 'json', 'version', '2026-08-20') || d.subject,
              CASE WHEN r.skipped THEN 'skipped' ELSE 'failed' END, CASE WHEN r.skipped THEN NULL ELSE 0 END, 0,
              CASE WHEN r.skipped THEN NULL ELSE 'connect ECONNREFUSED' END, d.created_at
         FROM d, LATERAL (SELECT random() < 0.85 AS skipped) AS r`,
      [new Date(fillFrom + day * DAY), hook, shop.id, `http://127.0.0.1:${receiverPort}/recovered`, template, n],
    );
    process.stdout.write(`\rfilled day ${day + 1}/${DAYS}`);
  }
  await db.query('DROP FUNCTION public.bench_uuid_v7(timestamptz)');
  await db.query('VACUUM ANALYZE delivery.webhook_delivery, delivery.webhook_log, delivery.webhook_delivery_outcome');
  results.fill = { seconds: round(seconds(fillStarted), 0) };
  console.log(`\nfilled ${DELIVERIES} deliveries in ${results.fill.seconds} s`);

  // A backend user of the shop, signed in.
  const http = new HttpPool(`http://127.0.0.1:${CONFIG_PORT}`, { connections: 4 });
  const email = `shop-${randomUUID().slice(0, 8)}@example.com`;
  const password = 'bench-shop-password-1';
  const user = await http.request({
    path: `/internal/merchants/${shop.id}/users`,
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  if (user.statusCode !== 201) throw new Error(`backend user: ${user.statusCode} ${await user.body.text()}`);
  await user.body.dump();
  const signIn = await http.request({
    path: '/api/session',
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  const { csrfToken } = await signIn.body.json();
  const cookie = [signIn.headers['set-cookie']].flat()[0].split(';')[0];
  const backend = async (method, path, body) => {
    const response = await http.request({
      path,
      method,
      headers: { cookie, 'x-csrf-token': csrfToken, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.statusCode, body: await response.body.json() };
  };

  // ---- 2. run ----------------------------------------------------------------------------------------------------
  const neighbour = await platform('/internal/merchants', { name: 'Neighbour' });
  const neighbourHook = await createWebhook(
    neighbour.id,
    `http://127.0.0.1:${neighbourPort}/neighbour`,
    '{transaction}',
  );
  await sleep(1_000); // the dispatchers' caches see it (no change message: it was created before any event)
  /** Neighbour payments: uuid → the API's answer (epoch ms). */
  const answered = new Map();
  let loading = true;
  const load = (async () => {
    const every = 1000 / NEIGHBOUR_RATE;
    for (let i = 0, next = performance.now(); loading; i += 1, next += every) {
      const wait = next - performance.now();
      if (wait > 0) await sleep(wait);
      void platform('/internal/transactions', {
        merchantId: neighbour.id,
        integrationId: null,
        referenceId: `n-${i}`,
        status: 'confirmed',
        psp: 'Payrexx Direct',
        type: 'e-commerce',
        paymentMethod: 'visa',
        amount: 500,
        currency: 'CHF',
      }).then((t) => answered.set(t.uuid, performance.timeOrigin + performance.now()));
    }
  })();
  /** Arrivals: [uuid, at, path, webhook-id], collected from the receiver every second. */
  const arrivals = [];
  const collect = async () => {
    arrivals.push(...(await askShop('arrivals')).arrivals, ...(await askNeighbour('arrivals')).arrivals);
  };
  const timeline = [];
  await sleep(BEFORE_SECONDS * 1000);
  await collect();
  const recoverStarted = performance.timeOrigin + performance.now();

  const since = new Date(Date.now() - (DAYS + 1) * DAY + 3_600_000).toISOString();
  const t0 = performance.now();
  const first = await backend('POST', `/api/webhooks/${hook}/recover`, { since });
  const countMs = performance.now() - t0;
  const second = await backend('POST', `/api/webhooks/${hook}/recover`, { since });
  console.log(
    `recover: ${first.status} ${JSON.stringify(first.body)} in ${round(countMs, 0)} ms; pressed again: ${second.status}`,
  );
  results.recover = {
    answer: first.status,
    count: first.body.count,
    countMs: round(countMs, 0),
    secondPress: second.status,
  };

  let killed = null;
  // With pg_stat_statements loaded (shared_preload_libraries), the statements' time during the recover is reported.
  const statements = await db
    .query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements')
    .then(() => db.query('SELECT pg_stat_statements_reset()'))
    .then(
      () => true,
      () => false,
    );
  const cpuBefore = cpuSnapshot(() => undefined);
  const started = performance.now();
  for (;;) {
    await sleep(1_000);
    await collect();
    const { rows } = await db.query(
      `SELECT r.state, r.queued, r.total, coalesce(s.sent, 0) AS sent, r.lease_owner
         FROM delivery.webhook_recover r LEFT JOIN delivery.webhook_recover_sent s ON s.recover_id = r.id
        WHERE r.id = $1`,
      [first.body.id],
    );
    const row = rows[0];
    const recovered = arrivals.filter((a) => a[2] === '/recovered').length;
    timeline.push({ at: round(seconds(started), 0), queued: row.queued, sent: row.sent, arrived: recovered });
    process.stdout.write(
      `\r${round(seconds(started), 0)} s: queued ${row.queued}, sent ${row.sent}, arrived ${recovered}   `,
    );
    if (KILL && !killed && row.sent >= row.total / 3 && row.lease_owner) {
      const pid = Number(row.lease_owner.split(':')[1]);
      const victim = dispatchers.find((d) => d.pid === pid);
      if (victim) {
        victim.kill('SIGKILL');
        killed = { at: round(seconds(started), 1), sent: row.sent };
        console.log(`\nSIGKILL dispatcher ${pid} at ${row.sent} sent`);
        const replacement = startDispatcher(DISPATCHERS);
        await waitReady(`http://127.0.0.1:${DISPATCHER_PORTS[DISPATCHERS]}/health/ready`);
        void replacement;
      }
    }
    if (row.state !== 'running' || seconds(started) > MAX_SECONDS) {
      results.recover.state = row.state;
      break;
    }
  }
  const recoverEnded = performance.timeOrigin + performance.now();
  const named = new Map([
    [receiver.pid, 'shop receiver'],
    [neighbourReceiver.pid, 'neighbour receiver'],
    [api.pid, 'transaction-api'],
    [config.pid, 'webhook-config'],
    ...dispatchers.map((child) => [child.pid, 'dispatchers']),
  ]);
  const cpuSeconds = cpuSecondsBetween(
    cpuBefore,
    cpuSnapshot(groupBy(named, infra.brokerPids(), await infra.postgresPids())),
  );
  if (statements) {
    const { rows } = await db.query(
      `SELECT round(total_exec_time)::int AS ms, calls::int, rows::int,
              left(regexp_replace(query, '\\s+', ' ', 'g'), 90) AS query
         FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
        ORDER BY total_exec_time DESC LIMIT 12`,
    );
    results.statements = rows;
  }
  await sleep(3_000);
  loading = false;
  await load;
  await sleep(2_000);
  await collect();
  const progress = await backend('GET', `/api/webhooks/${hook}/recover`);

  // What the dispatchers decided besides attempts (redelivered or re-queued copies dropped, …), summed.
  const decisions = {};
  for (const [i, child] of dispatchers.entries()) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const text = await (await fetch(`http://127.0.0.1:${DISPATCHER_PORTS[i]}/metrics`)).text();
    for (const [, decision, value] of text.matchAll(
      /^webhook_delivery_decisions_total\{decision="([a-z_]+)"\} (\d+)/gm,
    )) {
      decisions[decision] = (decisions[decision] ?? 0) + Number(value);
    }
  }
  results.decisions = decisions;

  // ---- 3. report -------------------------------------------------------------------------------------------------
  const recovered = arrivals.filter((a) => a[2] === '/recovered');
  const ids = new Map();
  for (const a of recovered) ids.set(a[3], (ids.get(a[3]) ?? 0) + 1);
  const firstQueued = timeline.find((t) => t.queued > 0);
  const allQueued = timeline.find((t) => t.queued >= timeline.at(-1).queued);
  const elapsed = (recoverEnded - recoverStarted) / 1000;
  const latencies = (from, to) =>
    arrivals
      .filter((a) => a[2] === '/neighbour' && answered.has(a[0]))
      .map((a) => [answered.get(a[0]), a[1] - answered.get(a[0])])
      .filter(([at]) => at >= from && at < to)
      .map(([, ms]) => ms)
      .sort((a, b) => a - b);
  // The second half of the time before the recover: the apps warmed up.
  const before = latencies(recoverStarted - (BEFORE_SECONDS * 1000) / 2, recoverStarted);
  const during = latencies(recoverStarted, recoverEnded);
  Object.assign(results.recover, {
    progress: progress.body,
    seconds: round(elapsed, 1),
    queuePerSecond: allQueued && firstQueued ? round(allQueued.queued / Math.max(1, allQueued.at), 0) : null,
    deliveredPerSecond: round(ids.size / elapsed, 0),
    distinctArrived: ids.size,
    repeats: [...ids.values()].reduce((sum, n) => sum + n - 1, 0),
    // Deliveries with two logged successes: a 2xx the platform had recorded and sent again anyway (must be 0; a
    // repeat after a kill is an attempt answered and not yet logged when its process died).
    loggedTwice: (
      await db.query(
        `SELECT count(*)::int AS n FROM (
           SELECT delivery_id FROM delivery.webhook_log WHERE webhook_id = $1 AND manual AND outcome = 'delivered'
            GROUP BY delivery_id HAVING count(*) > 1) twice`,
        [hook],
      )
    ).rows[0].n,
    killed,
  });
  results.neighbour = {
    before: { count: before.length, p50: round(percentile(before, 50), 1), p99: round(percentile(before, 99), 1) },
    during: { count: during.length, p50: round(percentile(during, 50), 1), p99: round(percentile(during, 99), 1) },
  };
  // Where the neighbour's time went during the recover: API → relay's confirmed publish (outbox), → the attempt's
  // start (broker, fan-out, delivery queue, gate), → arrival (the POST).
  const { rows: stages } = await db.query(
    `SELECT o.subject_id AS uuid, extract(epoch FROM o.created_at) * 1000 AS made,
            extract(epoch FROM o.sent_at) * 1000 AS sent, extract(epoch FROM min(l.created_at)) * 1000 AS attempted
       FROM payments.outbox_event o
       JOIN delivery.webhook_log l ON l.event_id = o.id AND NOT l.manual AND l.created_at >= to_timestamp($2 / 1000.0)
      WHERE o.created_at >= to_timestamp($2 / 1000.0) AND o.created_at < to_timestamp($3 / 1000.0)
        AND l.webhook_id = $1
      GROUP BY 1, 2, 3`,
    [neighbourHook, recoverStarted, recoverEnded],
  );
  const arrivedAt = new Map(arrivals.filter((a) => a[2] === '/neighbour').map((a) => [a[0], a[1]]));
  const stage = (pick) => {
    const values = stages
      .map(pick)
      .filter((v) => Number.isFinite(v))
      .sort((a, b) => a - b);
    return { p50: round(percentile(values, 50), 1), p99: round(percentile(values, 99), 1) };
  };
  // The slowest neighbour deliveries during the recover, by when they were made (s after its start): clustered
  // or spread.
  results.neighbour.slowestDuring = stages
    .map((r) => ({
      at: round((Number(r.made) - recoverStarted) / 1000, 1),
      relay: round(Number(r.sent) - Number(r.made), 0),
      toAttempt: round(Number(r.attempted) - Number(r.sent), 0),
      post: round((arrivedAt.get(r.uuid) ?? NaN) - Number(r.attempted), 0),
    }))
    .sort((a, b) => b.relay + b.toAttempt + b.post - (a.relay + a.toAttempt + a.post))
    .slice(0, 25);
  results.neighbour.stagesDuring = {
    count: stages.length,
    relay: stage((r) => Number(r.sent) - Number(r.made)),
    toAttempt: stage((r) => Number(r.attempted) - Number(r.sent)),
    attemptToArrival: stage((r) => (arrivedAt.get(r.uuid) ?? NaN) - Number(r.attempted)),
  };
  // CPU per recovered delivery, by process group (the neighbour's 20 a second included): what a recover costs.
  const cpuTotal = Object.values(cpuSeconds).reduce((sum, v) => sum + v, 0);
  results.cpu = {
    coresBusy: round(cpuTotal / elapsed, 2),
    msPerDelivery: Object.fromEntries(
      Object.entries({ ...cpuSeconds, total: cpuTotal }).map(([group, sec]) => [
        group,
        round((sec * 1000) / Math.max(1, ids.size), 3),
      ]),
    ),
  };
  results.timeline = timeline;
  console.log(
    `\nrecover of ${results.recover.count}: counted in ${results.recover.countMs} ms; ${results.recover.state} after ` +
      `${results.recover.seconds} s; ${results.recover.deliveredPerSecond} delivered/s; ${results.recover.repeats} ` +
      `repeats (${results.recover.loggedTwice} of logged successes); neighbour p99 ${results.neighbour.before.p99} → ${results.neighbour.during.p99} ms`,
  );
  await http.close();
  await apiClient.close();
  console.log(JSON.stringify({ ...results, timeline: undefined }, null, 2));
  mkdirSync(new URL('../results/', import.meta.url), { recursive: true });
  writeFileSync(new URL('../results/recover.json', import.meta.url), `${JSON.stringify(results, null, 2)}\n`);
} finally {
  await Promise.all(children.map(stopChild));
  await db.end();
  await infra.cleanup();
}
