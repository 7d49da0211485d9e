// `npm run bench:cli` — `payments listen` at the size of a platform's developers (docs/benchmarks-cli.md).
//
// transaction-api, webhook-config and a dispatcher as `npm start` runs them; BENCH_SESSIONS (100) `payments listen`
// processes, two per integration (BENCH_SESSIONS / 2 integrations of one merchant), all forwarding to one receiver
// process; beside them a real webhook of another merchant.
// 1. start: each command line's spawn → its ready line (p50, p99, max), started BENCH_START_BATCH (10) at a time.
// 2. forward: BENCH_RATE (20) payments a second through the platform API for BENCH_SECONDS (30) s, each of a random
//    integration; API answer → arrival at the local URL, p50/p99/max over every (payment, session) pair, and how many
//    arrived (each once). The same rate to the neighbour's webhook the whole time: its API answer → arrival p99, and
//    again with no session open (the baseline, measured first): many sessions must not slow real deliveries.
// 3. reconnect: webhook-config is restarted (SIGTERM, started again); BENCH_GAP (50) payments are recorded while it is
//    down. From its readiness to every command line's "Reconnected." (p50, max), and whether every payment of the gap
//    reached both of its sessions.
// Everything runs on 127.0.0.1 (database bench_cli, dropped afterwards; a RabbitMQ vhost of its own). Results: printed,
// and written to bench/results/cli.json.
import { PLATFORM_TOKEN, platformApi } from '../lib/platform-api.js';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { startReceiver } from '../lib/receiver.js';

const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 100);
const START_BATCH = Number(process.env.BENCH_START_BATCH ?? 10);
const RATE = Number(process.env.BENCH_RATE ?? 20);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 30);
const GAP = Number(process.env.BENCH_GAP ?? 50);
/** Sessions started and never connected (their queues and bindings exist) while the forward phase runs. */
const IDLE_SESSIONS = Number(process.env.BENCH_IDLE_SESSIONS ?? 2_000);
const TOKEN = PLATFORM_TOKEN;
const API_PORT = 3961;
const CONFIG_PORT = 3962;
const DISPATCHER_PORT = 3963;

if (process.env.BENCH_SKIP_BUILD !== '1') {
  const build = spawnSync('nx', ['run-many', '-t', 'build', '--output-style=static'], { stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

const { BENCH_KEY, freshInfrastructure, startApp, waitReady, stopChild, percentile, round } =
  await import('../lib/infra.js');
const { Pool: HttpPool } = await import('undici');

const infra = await freshInfrastructure('cli');
const results = {
  machine: { cores: (await import('node:os')).cpus().length, node: process.version },
  settings: { SESSIONS, START_BATCH, RATE, SECONDS, GAP, IDLE_SESSIONS },
  date: new Date().toISOString(),
};
const children = [];
const clis = [];
let config;
const now = () => performance.timeOrigin + performance.now();
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const stats = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    n: sorted.length,
    p50: round(percentile(sorted, 50)),
    p99: round(percentile(sorted, 99)),
    max: round(sorted.at(-1) ?? NaN),
  };
};

/** A `payments listen` process: when it printed its ready line and each "Reconnected.". */
function startCli(apiKey, forwardTo) {
  const spawnedAt = now();
  const child = spawn(
    process.execPath,
    ['packages/payments-cli/payments.js', 'listen', '--api-key', apiKey, '--forward-to', forwardTo],
    { env: { PATH: process.env.PATH, PAYMENTS_BACKEND_URL: `http://127.0.0.1:${CONFIG_PORT}` }, stdio: 'pipe' },
  );
  const cli = { child, spawnedAt, readyAt: undefined, reconnectedAt: [], output: '' };
  let pending = '';
  child.stdout.on('data', (chunk) => {
    const lines = (pending + chunk).split('\n');
    pending = lines.pop();
    for (const line of lines) {
      if (line.startsWith('Ready!')) cli.readyAt = now();
      else if (line.startsWith('Reconnected.')) cli.reconnectedAt.push(now());
    }
  });
  child.stderr.on('data', (chunk) => (cli.output = (cli.output + chunk).slice(-2_000)));
  clis.push(cli);
  return cli;
}

async function until(check, what, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

try {
  const { child: receiver, port: receiverPort, ask } = await startReceiver();
  children.push(receiver);
  const env = {
    DATABASE_URL: infra.databaseUrl,
    AMQP_URL: infra.amqpUrl,
    SECRET_ENCRYPTION_KEY: BENCH_KEY,
    PLATFORM_TOKEN: TOKEN,
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  };
  const api = startApp('transaction-api', { ...env, TRANSACTION_API_PORT: String(API_PORT) });
  config = startApp('webhook-config', { ...env, WEBHOOK_CONFIG_PORT: String(CONFIG_PORT) });
  const dispatcher = startApp('webhook-dispatcher', { ...env, WEBHOOK_DISPATCHER_PORT: String(DISPATCHER_PORT) });
  children.push(api, dispatcher);
  for (const port of [API_PORT, CONFIG_PORT, DISPATCHER_PORT]) await waitReady(`http://127.0.0.1:${port}/health/ready`);

  const apiClient = platformApi(`http://127.0.0.1:${API_PORT}`);
  const platform = apiClient.post;
  /** A payment recorded through the platform API (its event goes out when the API answers). */
  const record = (merchantId, integrationId) =>
    platform('/internal/transactions', {
      merchantId,
      integrationId,
      status: 'waiting',
      psp: 'bench',
      type: 'e-commerce',
      paymentMethod: 'visa',
      amount: 100,
      currency: 'CHF',
    });
  const configPool = new HttpPool(`http://127.0.0.1:${CONFIG_PORT}`, { connections: 4 });
  const backend = async (path, body, headers = {}) => {
    const response = await configPool.request({
      path,
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    const text = await response.body.text();
    if (response.statusCode >= 300) throw new Error(`${path}: ${response.statusCode} ${text}`);
    return { body: text ? JSON.parse(text) : undefined, headers: response.headers };
  };

  // The developers' merchant (SESSIONS / 2 integrations) and the neighbour with a real webhook.
  const shop = await platform('/internal/merchants', { name: 'Developers' });
  const integrations = [];
  for (let i = 0; i < SESSIONS / 2; i += 1) {
    integrations.push(await platform(`/internal/merchants/${shop.id}/integrations`, { name: `dev ${i}` }));
  }
  const neighbour = await platform('/internal/merchants', { name: 'Neighbour' });
  await backend(
    `/internal/merchants/${neighbour.id}/users`,
    { email: 'n@example.com', password: 'neighbour-pass-123' },
    { authorization: `Bearer ${TOKEN}` },
  );
  const login = await backend('/api/session', { email: 'n@example.com', password: 'neighbour-pass-123' });
  const cookie = String(login.headers['set-cookie']).split(';')[0];
  await backend(
    '/api/webhooks',
    { name: 'shop', url: `http://127.0.0.1:${receiverPort}/neighbour`, events: ['transaction'] },
    { cookie, 'x-csrf-token': login.body.csrfToken },
  );

  /** Payments at RATE a second for `seconds`: to the neighbour, and (with `sessions`) to a random integration. */
  async function traffic(seconds, sessions) {
    const answered = new Map(); // uuid → [answer time, integration index or -1]
    const payment = async (merchantId, integrationId, index) => {
      const { uuid } = await record(merchantId, integrationId);
      answered.set(uuid, [now(), index]);
    };
    const started = now();
    const work = [];
    for (let i = 0; i < seconds * RATE; i += 1) {
      const due = started + (i * 1000) / RATE;
      if (due > now()) await sleep(due - now());
      work.push(payment(neighbour.id, null, -1));
      if (sessions) {
        const index = Math.floor(Math.random() * integrations.length);
        work.push(payment(shop.id, integrations[index].id, index));
      }
    }
    await Promise.all(work);
    return answered;
  }

  /** Arrivals of the answered payments: latencies at the neighbour and at the sessions, and how many arrived. */
  async function measure(answered, sessions) {
    await sleep(3_000);
    const arrivals = (await ask('arrivals')).arrivals;
    const neighbour = [];
    const forwarded = [];
    const seen = new Map();
    for (const [uuid, at, path] of arrivals) {
      const answer = answered.get(uuid);
      if (!answer) continue;
      seen.set(`${uuid}${path}`, (seen.get(`${uuid}${path}`) ?? 0) + 1);
      (path === '/neighbour' ? neighbour : forwarded).push(at - answer[0]);
    }
    const toSessions = [...answered.values()].filter(([, index]) => index >= 0).length;
    return {
      neighbour: stats(neighbour),
      ...(sessions
        ? {
            forwarded: stats(forwarded),
            expected: toSessions * 2,
            repeats: [...seen.values()].filter((count) => count > 1).length,
          }
        : {}),
    };
  }

  // ---- baseline: the neighbour's webhook with no session open ------------------------------------------------------
  await traffic(3, false); // warm up
  await ask('arrivals');
  results.baseline = await measure(await traffic(SECONDS, false), false);
  console.log('baseline (no session):', JSON.stringify(results.baseline));

  // ---- 1. start ------------------------------------------------------------------------------------------------------
  for (let i = 0; i < SESSIONS; i += START_BATCH) {
    const batch = [];
    for (let j = i; j < Math.min(SESSIONS, i + START_BATCH); j += 1) {
      const integration = integrations[Math.floor(j / 2)];
      batch.push(startCli(integration.apiKey, `http://127.0.0.1:${receiverPort}/s${j}`));
    }
    await until(() => batch.every((cli) => cli.readyAt), `${batch.length} ready lines`);
  }
  results.start = stats(clis.map((cli) => cli.readyAt - cli.spawnedAt));
  console.log('start (spawn → ready line, ms):', JSON.stringify(results.start));

  // ---- 2. forward ----------------------------------------------------------------------------------------------------
  // The platform's other developers: IDLE_SESSIONS sessions (100 per integration, the most one may have) whose
  // command lines are away — every one a queue bound on payments.events, 8 bindings each.
  const idleStarted = now();
  for (let i = 0; i < IDLE_SESSIONS; i += 100) {
    const integration = await platform(`/internal/merchants/${shop.id}/integrations`, { name: `idle ${i}` });
    const starts = [];
    for (let j = i; j < Math.min(IDLE_SESSIONS, i + 100); j += 1) {
      starts.push(backend('/api/cli/sessions', {}, { authorization: `Bearer ${integration.apiKey}` }));
    }
    await Promise.all(starts);
  }
  results.idleSessions = { count: IDLE_SESSIONS, startedInMs: round(now() - idleStarted) };
  await traffic(3, true); // warm up
  await sleep(1_000);
  await ask('arrivals');
  results.forward = await measure(await traffic(SECONDS, true), true);
  console.log('forward (API answer → local URL, ms):', JSON.stringify(results.forward));

  // ---- 3. reconnect --------------------------------------------------------------------------------------------------
  await ask('arrivals');
  await stopChild(config);
  const gap = new Map();
  for (let i = 0; i < GAP; i += 1) {
    const index = i % integrations.length;
    const { uuid } = await record(shop.id, integrations[index].id);
    gap.set(uuid, index);
  }
  config = startApp('webhook-config', { ...env, WEBHOOK_CONFIG_PORT: String(CONFIG_PORT) });
  await waitReady(`http://127.0.0.1:${CONFIG_PORT}/health/ready`, 60_000);
  const readyAt = now();
  await until(() => clis.every((cli) => cli.reconnectedAt.length > 0), 'every command line to reconnect').catch(
    (error) => {
      const stuck = clis.filter((cli) => cli.reconnectedAt.length === 0);
      throw new Error(`${error.message}: ${stuck.length} did not; one printed:\n${stuck[0]?.output}`);
    },
  );
  await sleep(3_000);
  const arrived = new Map();
  for (const [uuid, , path] of (await ask('arrivals')).arrivals) {
    if (gap.has(uuid)) arrived.set(`${uuid}${path}`, (arrived.get(`${uuid}${path}`) ?? 0) + 1);
  }
  results.reconnect = {
    ...stats(clis.map((cli) => cli.reconnectedAt[0] - readyAt)),
    gapExpected: GAP * 2,
    gapArrived: arrived.size,
    gapRepeats: [...arrived.values()].filter((count) => count > 1).length,
  };
  console.log('reconnect (backend ready → Reconnected., ms):', JSON.stringify(results.reconnect));
} finally {
  for (const cli of clis) cli.child.kill('SIGINT');
  await sleep(500);
  await Promise.all([...children, config].filter(Boolean).map(stopChild));
  await infra.cleanup();
}

mkdirSync('bench/results', { recursive: true });
writeFileSync('bench/results/cli.json', JSON.stringify(results, null, 2));
console.log(JSON.stringify(results, null, 2));
process.exit(0);
