import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { QUEUES, type AmqpClient } from '#messaging';
import { rabbitmqctl, waitFor } from '#testing';
import {
  Receiver,
  closeDb,
  createMerchant,
  createWebhook,
  db,
  dispatcherEnv,
  publishEvents,
  testAmqp,
  transactionEvent,
} from './dispatcher.harness.js';

const MAIN = 'dist/apps/webhook-dispatcher/src/main.js';
const EVENTS = 1_000;
const WEBHOOKS = 10;

/**
 * A dispatcher as its own OS process (built output), so it can be killed for real. `priority`: the process with the
 * higher one takes the work first (DISPATCHER_CONSUMER_PRIORITY).
 */
function spawnDispatcher(name: string, priority = 500): ChildProcess {
  if (!existsSync(MAIN))
    throw new Error(`${MAIN} is missing: the test target builds it first (nx run webhook-dispatcher:build)`);
  const child = spawn(process.execPath, [MAIN], {
    env: dispatcherEnv({
      WEBHOOK_DISPATCHER_PORT: '0',
      LOG_LEVEL: 'warn',
      DISPATCHER_CONSUMER_PRIORITY: String(priority),
      // The receiver runs in the test process: on a busy machine it may answer after the harness's 1 s, and ten
      // quick repeats of a slow answer end as failed, not received. This test is about failures of the dispatcher
      // and the broker, not slow receivers, so give the receiver time.
      WEBHOOK_TIMEOUT_MS: '10000',
    }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Warnings (reconnects, database waits) go to stdout, errors to stderr: keep both, to explain a failure.
  for (const stream of [child.stdout, child.stderr]) {
    stream?.on('data', (chunk: Buffer) => process.stderr.write(`[${name}] ${chunk}`));
  }
  return child;
}

async function stop(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  await exited;
}

/** Every (event, webhook) pair of these webhooks, and whether the receiver saw its webhook-id at least once. */
async function undelivered(
  webhookIds: string[],
  seen: Set<string>,
): Promise<{ pairs: number; missing: number; missingIds: string[] }> {
  const { rows } = await db().query<{ id: string }>(`SELECT id FROM webhook_delivery WHERE webhook_id = ANY($1)`, [
    webhookIds,
  ]);
  const missing = rows.filter((row) => !seen.has(row.id)).map((row) => row.id);
  return { pairs: rows.length, missing: missing.length, missingIds: missing };
}

/** What the log says of these deliveries (for a failure's message): entries by outcome, status and error. */
async function logSummary(deliveryIds: string[]): Promise<string> {
  const { rows } = await db().query<{ outcome: string | null; status: number | null; error: string | null; n: number }>(
    `SELECT l.outcome, l.status, left(l.error, 60) AS error, count(*)::int AS n
       FROM unnest($1::uuid[]) AS d(id) LEFT JOIN webhook_log l ON l.delivery_id = d.id
      GROUP BY 1, 2, 3 ORDER BY 4 DESC`,
    [deliveryIds],
  );
  return rows.map((r) => `${r.n}× ${r.outcome ?? 'no entry'} ${r.status ?? ''} ${r.error ?? ''}`.trim()).join('; ');
}

describe('at-least-once under failure (separate dispatcher processes, 10,000 deliveries)', () => {
  let amqp: AmqpClient;
  const receiver = new Receiver(() => ({ status: 200 }));
  const seen = new Set<string>();

  beforeAll(async () => {
    await receiver.start();
    amqp = testAmqp();
    await amqp.waitForConnect();
  });
  afterAll(async () => {
    await amqp.close();
    await receiver.stop();
    await closeDb();
  });

  /** True once every pair arrived; otherwise throws what is missing and where messages wait (for the timeout). */
  async function allDelivered(webhookIds: string[], requests: typeof receiver.requests): Promise<true> {
    for (const r of requests) seen.add(r.headers['webhook-id'] as string);
    const { pairs, missing, missingIds } = await undelivered(webhookIds, seen);
    if (pairs === EVENTS * WEBHOOKS && missing === 0) return true;
    const queues = [QUEUES.dispatcherEvents, QUEUES.deliveries, QUEUES.parkedEvents, QUEUES.parkedDeliveries];
    const depths = await Promise.all(queues.map((q) => amqp.queueDepth(q).then(String, () => '?')));
    throw new Error(
      `${pairs} of ${EVENTS * WEBHOOKS} deliveries recorded, ${missing} of them not received; ready messages: ` +
        queues.map((q, i) => `${q} ${depths[i]}`).join(', ') +
        (missing > 0 ? `; their log: ${await logSummary(missingIds.slice(0, 1_000))}` : ''),
    );
  }

  async function scenario(label: string) {
    const { merchantId, integrationId } = await createMerchant();
    const hooks = [];
    for (let i = 0; i < WEBHOOKS; i += 1)
      hooks.push(await createWebhook({ merchantId, url: `${receiver.url}/${label}/${i}` }));
    const events = Array.from({ length: EVENTS }, () => transactionEvent(merchantId, integrationId));
    const received = () => receiver.requests.filter((r) => r.path.startsWith(`/${label}/`));
    return { hooks, events, received, webhookIds: hooks.map((h) => h.id) };
  }

  it('a dispatcher killed with SIGKILL mid-stream loses nothing: its unacked work is redelivered to the survivor', async () => {
    const { events, received, webhookIds } = await scenario('sigkill');
    // The victim takes the work first, so the kill catches it with deliveries in flight.
    const victim = spawnDispatcher('victim', 900);
    const survivor = spawnDispatcher('survivor', 100);
    try {
      await publishEvents(amqp, events);
      await waitFor(() => received().length >= 2_000, { timeoutMs: 60_000, what: '2,000 deliveries before the kill' });
      await stop(victim, 'SIGKILL');
      await waitFor(() => allDelivered(webhookIds, received()), {
        timeoutMs: 120_000,
        intervalMs: 500,
        what: 'every (event, webhook) delivered',
      });
      const { pairs, missing } = await undelivered(webhookIds, seen);
      expect(pairs).toBe(10_000);
      expect(missing).toBe(0);
    } finally {
      await stop(victim, 'SIGKILL');
      await stop(survivor);
    }
  }, 240_000);

  it('RabbitMQ stopped and started mid-stream: every (event, webhook) still delivered', async () => {
    const { events, received, webhookIds } = await scenario('restart');
    const dispatcher = spawnDispatcher('dispatcher');
    try {
      await publishEvents(amqp, events);
      await waitFor(() => received().length >= 1_500, { timeoutMs: 60_000, what: 'deliveries before the outage' });
      await rabbitmqctl('stop_app');
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      await rabbitmqctl('start_app');
      await waitFor(() => allDelivered(webhookIds, received()), {
        timeoutMs: 150_000,
        intervalMs: 500,
        what: 'every (event, webhook) delivered after the restart',
      });
      expect(await undelivered(webhookIds, seen)).toMatchObject({ pairs: 10_000, missing: 0 });
    } finally {
      await stop(dispatcher);
    }
  }, 300_000);
});
