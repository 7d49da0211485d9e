import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { QUEUES } from '#messaging';
import {
  appTestEnv,
  rabbitmqInstalled,
  startRabbitmqCluster,
  waitFor,
  type ClusterNode,
  type RabbitmqCluster,
} from '#testing';
import { startAppProcess, stopAppProcess, type AppName, type AppProcess } from './app-process.js';
import { ENCRYPTION_KEY, Receiver, servesWebhook } from './dispatcher.harness.js';

/**
 * The platform on a three-node RabbitMQ cluster started for this test from the installed RabbitMQ: transaction-api,
 * webhook-config and two dispatchers as real processes (built output), each with AMQP_URL listing the three nodes.
 * Payments are recorded through the platform API at a steady rate while the node that leads the events and delivery
 * queues is SIGKILLed, started again, and then the node leading them next is killed too. Every (event, webhook) pair
 * must arrive, deliveries must resume within RESUME_BOUND_MS of each kill, and every app's /health/ready must show
 * the lost node while it is gone. The figures are printed (docs/scaling.md quotes them).
 */

const TOKEN = 'development-platform-token';
/** Payments recorded per second through the platform API, each delivered to WEBHOOKS webhooks. */
const RATE = 10;
const WEBHOOKS = 2;
/** How long each killed node stays down before it is started again. */
const OUTAGE_MS = 10_000;
/** The longest a kill may stop deliveries: the first delivery of a payment recorded after the kill arrives by then. */
const RESUME_BOUND_MS = 30_000;

type RunningApp = AppProcess;

function startApp(name: string, app: AppName, amqpUrl: string): Promise<RunningApp> {
  return startAppProcess(
    app,
    appTestEnv({
      AMQP_URL: amqpUrl,
      LOG_LEVEL: 'warn',
      SECRET_ENCRYPTION_KEY: ENCRYPTION_KEY.toString('base64'),
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      WEBHOOK_TIMEOUT_MS: '2000',
      WEBHOOK_RETRY_DELAYS: Array(10).fill('500ms').join(','),
      // One merchant's load: far over any per-key limit; not what this test is about.
      API_RATE_LIMIT: '1000000',
    }),
    { name, readyTimeoutMs: 120_000 },
  );
}

const stopApp = stopAppProcess;

async function call(baseUrl: string, method: string, path: string, body: unknown, headers: Record<string, string>) {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return { response, body: JSON.parse(text) as Record<string, string> };
}

/** One /health/ready answer of one app: its RabbitMQ check (the database's is not this test's business). */
interface HealthSample {
  app: string;
  at: number;
  /** The app's RabbitMQ check: up or down; undefined when the app did not answer. */
  rabbitmq?: 'up' | 'down';
  /** The node the app is connected to (while ready), and how it sees each listed node. */
  node?: string | null;
  nodes?: Record<string, string>;
}

async function sampleHealth(app: RunningApp): Promise<HealthSample> {
  const at = Date.now();
  try {
    const response = await fetch(`${app.baseUrl}/health/ready`, { signal: AbortSignal.timeout(5_000) });
    // 200: terminus's answer with `info`; 503: the problem with `checks` and `rabbitmqNodes`.
    const body = (await response.json()) as {
      info?: { rabbitmq?: { status: 'up'; node?: string | null; nodes?: Record<string, string> } };
      error?: { rabbitmq?: { status: 'down' } };
      checks?: { rabbitmq?: 'up' | 'down' };
      rabbitmqNodes?: Record<string, string>;
    };
    const info = body.info?.rabbitmq;
    const rabbitmq = info?.status ?? body.error?.rabbitmq?.status ?? body.checks?.rabbitmq;
    return { app: app.name, at, rabbitmq, node: info?.node, nodes: info?.nodes ?? body.rabbitmqNodes };
  } catch {
    return { app: app.name, at };
  }
}

const label = (node: ClusterNode) => `127.0.0.1:${node.port}`;
const seconds = (ms: number) => Math.round(ms / 100) / 10;

describe('a three-node RabbitMQ cluster loses a node, then another, under steady load (real processes)', () => {
  let cluster: RabbitmqCluster | undefined;
  const apps: RunningApp[] = [];
  const receiver = new Receiver(() => ({ status: 200 }));
  /** Receptions per (payment uuid, webhook path), and when each pair first arrived. */
  const received = new Map<string, number>();
  const firstArrival = new Map<string, number>();
  /** The load and the health sampling run until cleared (also by afterAll, should the test time out). */
  let loading = false;
  let sampling = false;
  /** What happened when (printed at the end, whatever the outcome). */
  const timeline: string[] = [];
  const started = Date.now();
  const note = (what: string) => timeline.push(`${seconds(Date.now() - started)} s: ${what}`);

  beforeAll(async () => {
    if (!rabbitmqInstalled()) {
      throw new Error('This test starts a RabbitMQ cluster from the installed RabbitMQ (/usr/lib/rabbitmq/bin)');
    }
    await receiver.start();
    cluster = await startRabbitmqCluster(3);
    note('cluster of three running');
    const api = await startApp('transaction-api', 'transaction-api', cluster.amqpUrl);
    apps.push(api);
    const [config, dispatcherA, dispatcherB] = await Promise.all([
      startApp('webhook-config', 'webhook-config', cluster.amqpUrl),
      startApp('dispatcher-a', 'webhook-dispatcher', cluster.amqpUrl),
      startApp('dispatcher-b', 'webhook-dispatcher', cluster.amqpUrl),
    ]);
    apps.push(config, dispatcherA, dispatcherB);
    note('apps ready');
  }, 240_000);

  afterAll(async () => {
    loading = false;
    sampling = false;
    process.stdout.write(`broker-cluster timeline:\n${timeline.join('\n')}\n`);
    await Promise.all(apps.map(stopApp));
    await cluster?.stop();
    await receiver.stop();
  }, 60_000);

  it('delivers every (event, webhook) pair, resumes within the bound after each kill, and health shows the lost node', async () => {
    const [api, config, ...dispatchers] = apps;
    const nodes = cluster!.nodes;
    const platform = { authorization: `Bearer ${TOKEN}` };

    // A merchant with a backend login, and its webhooks created through the backend as a merchant would.
    const merchant = (await call(api.baseUrl, 'POST', '/internal/merchants', { name: 'Cluster test' }, platform)).body;
    const integration = (
      await call(api.baseUrl, 'POST', `/internal/merchants/${merchant.id}/integrations`, { name: 'Shop' }, platform)
    ).body;
    const email = `cluster-${randomUUID()}@example.com`;
    const password = 'correct horse battery staple';
    await call(config.baseUrl, 'POST', `/internal/merchants/${merchant.id}/users`, { email, password }, platform);
    const session = await call(config.baseUrl, 'POST', '/api/session', { email, password }, {});
    const cookie = session.response.headers
      .getSetCookie()
      .find((value) => value.startsWith('wc_session='))!
      .split(';')[0];
    const backend = { cookie, 'x-csrf-token': session.body.csrfToken };
    for (let i = 0; i < WEBHOOKS; i += 1) {
      const url = `${receiver.url}/cluster/${i}`;
      const hook = { name: `hook ${i}`, url, events: ['transaction'], version: '2026-08-20', contentType: 'json' };
      await call(config.baseUrl, 'POST', '/api/webhooks', hook, backend);
      servesWebhook(url, { version: '2026-08-20', contentType: 'json' });
    }
    note('merchant, backend login and webhooks created');
    receiver.setResponder((request) => {
      const uuid = (JSON.parse(request.body) as { transaction?: { uuid?: string } }).transaction?.uuid;
      const pair = `${uuid} ${request.path}`;
      received.set(pair, (received.get(pair) ?? 0) + 1);
      if (!firstArrival.has(pair)) firstArrival.set(pair, request.receivedAt);
      return { status: 200 };
    });

    // The load: RATE payments a second through the platform API, each remembered with when it was recorded.
    const recorded: { uuid: string; at: number }[] = [];
    const apiFailures: string[] = [];
    loading = true;
    const load = (async () => {
      const loadStarted = Date.now();
      for (let n = 0; loading; n += 1) {
        const uuid = randomUUID();
        void call(
          api.baseUrl,
          'POST',
          '/internal/transactions',
          {
            merchantId: merchant.id,
            integrationId: integration.id,
            uuid,
            referenceId: `cluster-${n}`,
            status: 'confirmed',
            psp: 'Payrexx Direct',
            type: 'e-commerce',
            paymentMethod: 'visa',
            amount: 1990,
            currency: 'CHF',
            authentication: null,
          },
          platform,
        ).then(
          () => recorded.push({ uuid, at: Date.now() }),
          (error: Error) => apiFailures.push(error.message),
        );
        const next = loadStarted + ((n + 1) * 1_000) / RATE;
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - Date.now())));
      }
    })();

    // Every app's readiness, four times a second, for the whole run.
    const health: HealthSample[] = [];
    sampling = true;
    const sampler = (async () => {
      while (sampling) {
        health.push(...(await Promise.all(apps.map(sampleHealth))));
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    })();

    const pairsOf = (uuids: string[]) =>
      uuids.flatMap((uuid) => Array.from({ length: WEBHOOKS }, (_, i) => `${uuid} /cluster/${i}`));
    /** When deliveries resumed after `killedAt`: the first arrival of a payment recorded after the kill. */
    const resumedAfter = (killedAt: number) => {
      const after = pairsOf(recorded.filter((r) => r.at > killedAt).map((r) => r.uuid));
      const arrivals = after.map((pair) => firstArrival.get(pair)).filter((at): at is number => at !== undefined);
      return arrivals.length > 0 ? Math.min(...arrivals) : undefined;
    };

    const outages: { node: ClusterNode; killedAt: number; backAt: number; resumedAt: number }[] = [];
    /** Kills the node leading the events queue (made the deliveries queue's leader too), waits, starts it again. */
    const loseTheLeader = async () => {
      // Every node runs at this point (the previous one is back): any can be asked.
      const leader = await cluster!.colocateLeaders([QUEUES.dispatcherEvents, QUEUES.deliveries], nodes[0]);
      note(`${leader.name} leads both queues`);
      const killedAt = Date.now();
      await cluster!.kill(leader);
      note(`killed ${leader.name}, the leader of ${QUEUES.dispatcherEvents} and ${QUEUES.deliveries}`);
      const resumedAt = await waitFor(() => resumedAfter(killedAt), {
        timeoutMs: 120_000,
        intervalMs: 100,
        what: `deliveries to resume after ${leader.name} was killed`,
      });
      note(`deliveries resumed`);
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, killedAt + OUTAGE_MS - Date.now())));
      const backAt = Date.now();
      await cluster!.restart(leader);
      note(`${leader.name} runs again`);
      // Back in the cluster: both queues have all three members online again.
      const other = nodes.find((node) => node !== leader)!;
      await cluster!.awaitMembersOnline([QUEUES.dispatcherEvents, QUEUES.deliveries], other, 120_000);
      note(`${leader.name} is a member of both queues again`);
      outages.push({ node: leader, killedAt, backAt, resumedAt });
    };

    let expected: string[] = [];
    try {
      try {
        note(`load (${RATE} payments/s) and health sampling started`);
        await new Promise((resolve) => setTimeout(resolve, 5_000)); // steady state first
        await loseTheLeader();
        await new Promise((resolve) => setTimeout(resolve, 5_000));
        await loseTheLeader();
        await new Promise((resolve) => setTimeout(resolve, 5_000));
      } finally {
        loading = false;
        await load;
      }
      await new Promise((resolve) => setTimeout(resolve, 1_000)); // the last requests' answers
      expected = pairsOf(recorded.map((r) => r.uuid));
      await waitFor(() => expected.every((pair) => received.has(pair)), {
        timeoutMs: 120_000,
        intervalMs: 500,
        what: 'every (event, webhook) pair to arrive',
      });
      note('every (event, webhook) pair arrived');
    } catch (error) {
      const missing = expected.filter((pair) => !received.has(pair)).length;
      for (const app of apps) process.stderr.write(`[${app.name}]\n${app.output().slice(-8_000)}\n`);
      // Where the missing ones are: recorded when, still in the outbox, or waiting (or held) in which queue.
      const missingAt = recorded
        .filter((r) => pairsOf([r.uuid]).some((pair) => !received.has(pair)))
        .map((r) => seconds(r.at - started));
      const outbox = await fetch(`${api.baseUrl}/metrics`)
        .then((response) => response.text())
        .then((text) => /^outbox_events_unpublished \S+/m.exec(text)?.[0], String);
      const queues = await cluster!
        .ctl(nodes[0], 'list_queues', 'name', 'messages_ready', 'messages_unacknowledged', 'consumers')
        .catch(String);
      process.stderr.write(
        `missing pairs of payments recorded at ${missingAt[0]}–${missingAt.at(-1)} s (${missingAt.length}); ` +
          `${outbox}\n${queues}\n`,
      );
      throw new Error(`${(error as Error).message} (${missing} of ${expected.length} pairs missing)`, { cause: error });
    } finally {
      sampling = false;
      await sampler;
    }

    const deliveries = [...received.values()].reduce((sum, count) => sum + count, 0);
    const arrivals = [...firstArrival.values()].sort((a, b) => a - b);
    const longestGap = arrivals.slice(1).reduce((gap, at, i) => Math.max(gap, at - arrivals[i]), 0);
    const figures = {
      events: recorded.length,
      pairs: expected.length,
      lost: expected.filter((pair) => !received.has(pair)).length,
      duplicates: deliveries - received.size,
      apiFailures: apiFailures.length,
      kills: outages.map((o) => ({
        node: o.node.name,
        resumeSeconds: seconds(o.resumedAt - o.killedAt),
        downSeconds: seconds(o.backAt - o.killedAt),
      })),
      longestGapSeconds: seconds(longestGap),
    };
    process.stdout.write(`broker-cluster figures: ${JSON.stringify(figures)}\n`);

    expect(apiFailures).toEqual([]);
    expect(recorded.length).toBeGreaterThan(RATE * 30);
    expect(figures.lost).toBe(0);
    expect(outages).toHaveLength(2);
    // The second kill hit another node: the restarted one came back as a follower, the leaders stayed elsewhere.
    expect(outages[0].node.name).not.toBe(outages[1].node.name);
    for (const outage of outages) expect(outage.resumedAt - outage.killedAt).toBeLessThan(RESUME_BOUND_MS);

    // Health: before the first kill each app saw all three nodes up; during each outage every app showed the loss (the
    // lost node down, or its own RabbitMQ check down while it moved to another node); at the end all up again.
    const sampleShowsLoss = (sample: HealthSample, node: ClusterNode) =>
      sample.rabbitmq === 'down' || sample.nodes?.[label(node)] === 'down';
    const allUp = (sample: HealthSample) =>
      sample.rabbitmq === 'up' &&
      Object.keys(sample.nodes ?? {}).length === nodes.length &&
      Object.values(sample.nodes!).every((state) => state !== 'down');
    for (const app of apps) {
      const before = health.filter((sample) => sample.app === app.name && sample.at < outages[0].killedAt);
      expect({ app: app.name, allUpBefore: before.some(allUp) }).toEqual({ app: app.name, allUpBefore: true });
    }
    for (const outage of outages) {
      // Samples taken wholly inside the outage (from 1 s after the kill, so that the probes saw it).
      const during = health.filter((sample) => sample.at > outage.killedAt + 1_000 && sample.at < outage.backAt);
      for (const app of apps) {
        const ofApp = during.filter((sample) => sample.app === app.name);
        expect({ app: app.name, showedLoss: ofApp.some((sample) => sampleShowsLoss(sample, outage.node)) }).toEqual({
          app: app.name,
          showedLoss: true,
        });
        // While its RabbitMQ check is up, an app names the node it is connected to: never the lost one.
        for (const sample of ofApp.filter((s) => s.rabbitmq === 'up' && s.node !== undefined)) {
          expect(sample.node).toMatch(/^127\.0\.0\.1:\d+$/);
          expect(sample.node).not.toBe(label(outage.node));
        }
      }
    }
    // At the end, every app again sees all three nodes (its last answer that came at all).
    for (const app of apps) {
      const last = health.filter((sample) => sample.app === app.name && sample.rabbitmq !== undefined).at(-1);
      expect({ app: app.name, allUp: last !== undefined && allUp(last) }).toEqual({ app: app.name, allUp: true });
    }
    for (const dispatcher of dispatchers) expect(dispatcher.child.exitCode).toBeNull();
  }, 600_000);
});
