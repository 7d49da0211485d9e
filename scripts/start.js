// `npm start`: checks that PostgreSQL and RabbitMQ answer (else says how to start them and stops), builds, creates
// and migrates the database, starts the three apps as separate processes with labelled output, waits until each
// is ready, seeds the demo merchant once and prints what to use. The migration creates the apps' database roles
// (NOLOGIN) when missing; each app connects with DATABASE_URL (a superuser here) and takes its own role and schema
// at connection start (docs/architecture.md).
// Runs on the Node 24 that `npm run` puts first on PATH. Ctrl-C stops everything.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { connect } from 'node:net';
import { APP_NODE_FLAGS } from './node-flags.js';
import { seedDemo } from './seed-demo.js';
import { onPath } from './system-tools.js';

const env = { ...process.env, NODE_ENV: process.env.NODE_ENV || 'development', FORCE_COLOR: '1' };
const ports = {
  'transaction-api': Number(env.TRANSACTION_API_PORT || 3000),
  'webhook-config': Number(env.WEBHOOK_CONFIG_PORT || 3001),
  'webhook-dispatcher': Number(env.WEBHOOK_DISPATCHER_PORT || 3002),
};
const colors = { 'transaction-api': 36, 'webhook-config': 35, 'webhook-dispatcher': 33, start: 32 };
const say = (label, line) => process.stdout.write(`\x1b[${colors[label]}m[${label}]\x1b[0m ${line}\n`);

function step(label, command, args) {
  say('start', `${label}…`);
  const result = spawnSync(command, args, { env, stdio: 'inherit' });
  if (result.status !== 0) {
    say('start', `${label} failed (exit ${result.status}); see the output above.`);
    process.exit(result.status ?? 1);
  }
}

const LOCAL = new Set(['127.0.0.1', 'localhost', '[::1]']);
const pgVersions = existsSync('/etc/postgresql') ? readdirSync('/etc/postgresql') : [];
// AMQP_URL may list the nodes of one RabbitMQ cluster, comma-separated: it is up when any node answers (the apps
// connect to whichever does and fail over).
const amqpUrls = (env.AMQP_URL || 'amqp://guest:guest@127.0.0.1:5672')
  .split(',')
  .map((url) => url.trim())
  .filter(Boolean);
const services = [
  {
    name: 'PostgreSQL',
    variable: 'DATABASE_URL',
    urls: [env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/payments'],
    defaultPort: 5432,
    here:
      pgVersions.length > 0 &&
      `pg_ctlcluster --skip-systemctl-redirect ${pgVersions.length === 1 ? pgVersions[0] : '<version>'} main start`,
    docker: (port) => `docker run -d -p ${port}:5432 -e POSTGRES_HOST_AUTH_METHOD=trust postgres:16-alpine`,
  },
  {
    name: 'RabbitMQ',
    variable: 'AMQP_URL',
    urls: amqpUrls,
    defaultPort: amqpUrls[0]?.startsWith('amqps:') ? 5671 : 5672,
    here: onPath('rabbitmq-server') && 'rabbitmq-server -detached',
    docker: (port) => `docker run -d -p ${port}:5672 rabbitmq:3.13-alpine`,
  },
];

/** Whether a TCP connection to the service's host and port opens within 2 s. */
function answers({ hostname, port }) {
  return new Promise((resolve) => {
    const socket = connect({ host: hostname.replace(/^\[|\]$/g, ''), port: Number(port) });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(2_000, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

const down = [];
await Promise.all(
  services.map(async (service) => {
    // Not host:port (a socket path, or invalid): the apps' own checks report it.
    const addresses = service.urls.flatMap((url) => {
      const parsed = URL.parse(url);
      return parsed?.hostname ? [{ hostname: parsed.hostname, port: parsed.port || service.defaultPort }] : [];
    });
    if (addresses.length === 0) return;
    const up = await Promise.all(addresses.map((address) => answers(address)));
    if (!up.some(Boolean)) down.push({ ...service, addresses });
  }),
);
for (const service of down.sort((a, b) => a.name.localeCompare(b.name))) {
  const where = service.addresses.map(({ hostname, port }) => `${hostname}:${port}`).join(', ');
  const { hostname, port } = service.addresses[0];
  say(
    'start',
    `${service.name} does not answer at ${service.addresses.length > 1 ? `any of ${where}` : where} (${service.variable}). Start it:`,
  );
  if (LOCAL.has(hostname)) {
    if (service.here) say('start', `  on this machine:  ${service.here}`);
    say('start', `  or with Docker:   ${service.docker(port)}`);
  } else {
    say('start', `  on ${hostname}, or set ${service.variable} to a server that runs`);
  }
}
if (down.length > 0) {
  say('start', 'then run npm start again.');
  process.exit(1);
}

step('building', 'nx', ['run-many', '-t', 'build', '--output-style=static']);
step('migrating the database', 'node', ['dist/libs/persistence/src/migrate.main.js']);

const children = [];
let stopping = false;
function stopAll(code) {
  if (stopping) return;
  stopping = true;
  for (const child of children) child.kill('SIGTERM');
  setTimeout(() => process.exit(code), 10_000).unref();
  Promise.all(children.map((child) => new Promise((resolve) => child.once('exit', resolve)))).then(() =>
    process.exit(code),
  );
}
process.on('SIGINT', () => stopAll(0));
process.on('SIGTERM', () => stopAll(0));

for (const app of Object.keys(ports)) {
  const child = spawn('node', [...APP_NODE_FLAGS, `dist/apps/${app}/src/main.js`], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  for (const stream of [child.stdout, child.stderr]) {
    let buffered = '';
    stream.on('data', (chunk) => {
      const lines = (buffered + chunk).split('\n');
      buffered = lines.pop();
      for (const line of lines) say(app, line);
    });
  }
  child.on('exit', (code, signal) => {
    if (!stopping) {
      say(app, `exited (${signal ?? code}); stopping the others`);
      stopAll(1);
    }
  });
}

async function ready(app) {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    try {
      const response = await fetch(`http://127.0.0.1:${ports[app]}/health/ready`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  throw new Error(`${app} did not become ready within 120 s`);
}

try {
  await Promise.all(Object.keys(ports).map(ready));
  const demo = await seedDemo({ env, ports });
  const base = (app) => `http://127.0.0.1:${ports[app]}`;
  const lines = [
    '',
    'The payment platform is running:',
    `  transaction-api     ${base('transaction-api')}      (API docs: ${base('transaction-api')}/docs)`,
    `  merchant backend    ${base('webhook-config')}/      (webhooks and their logs)`,
    `  webhook-dispatcher  ${base('webhook-dispatcher')}/metrics`,
    '',
    ...demo.lines,
    '',
    'Ctrl-C stops all three apps.',
    '',
  ];
  for (const line of lines) say('start', line);
} catch (error) {
  say('start', `start failed: ${error.message}`);
  stopAll(1);
}
