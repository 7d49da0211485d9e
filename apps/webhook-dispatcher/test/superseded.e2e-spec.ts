import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { publishDispatcherCommand, publishWebhookChanged, type AmqpClient, type PlatformEvent } from '#messaging';
import { waitFor } from '#testing';
import { DispatcherMetrics } from '../src/metrics/dispatcher.metrics.js';
import { PartitionMaintenance } from '../src/retention/partition-maintenance.service.js';
import { startAppProcess, stopAppProcess, type AppProcess } from './app-process.js';
import {
  Receiver,
  closeDb,
  createWebhook,
  createMerchant,
  db,
  dispatcherEnv,
  logsOf,
  publishEvents,
  startDispatcher,
  testAmqp,
  transactionEvent,
  type LogRow,
  type ReceivedRequest,
} from './dispatcher.harness.js';

/** Repeats every 200 ms: ten of them take two seconds, room for a newer event to be delivered in between. */
const DELAYS = Array(10).fill('200ms').join(',');
/** How long a test watches for requests that must not come (several repeat delays). */
const QUIET_MS = 1_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The transaction a webhook request is about: its uuid and status, as the body says. */
const transactionOf = (request: ReceivedRequest) =>
  (JSON.parse(request.body) as { transaction: { uuid: string; status: string; updatedAt: string } }).transaction;

/** A shop that knows only the newest status: 'waiting' is answered with 500, any other status with 200. */
const answerByStatus = (request: ReceivedRequest) => ({
  status: transactionOf(request).status === 'waiting' ? 500 : 200,
});

/** The log entries of one event's delivery to a webhook, oldest attempt first. */
const entriesOf = async (webhookId: string, event: PlatformEvent): Promise<LogRow[]> =>
  (await logsOf(webhookId)).filter((log) => log.event_id === event.id);

/** The newest position of a subject delivered to a webhook, as recorded (undefined: none). */
async function recordedPosition(webhookId: string, subjectId: string): Promise<number | undefined> {
  const { rows } = await db().query<{ position: string }>(
    `SELECT position FROM subject_delivered WHERE webhook_id = $1 AND event_type = 'transaction' AND subject_id = $2`,
    [webhookId, subjectId],
  );
  return rows[0] && Number(rows[0].position);
}

/**
 * Deletes webhooks whose deliveries still repeat (as webhook-config does, and tells the dispatchers): their pending
 * repeats are dropped, not parked, so the parked queue stays as other test files expect it.
 */
async function retire(amqp: AmqpClient, merchantId: string, webhookIds: string[]): Promise<void> {
  await db().query('DELETE FROM webhook WHERE id = ANY($1)', [webhookIds]);
  for (const webhookId of webhookIds) await publishWebhookChanged(amqp, { webhookId, merchantId });
  await waitFor(
    async () =>
      (await db().query('SELECT 1 FROM webhook_delivery WHERE webhook_id = ANY($1) LIMIT 1', [webhookIds])).rowCount ===
      0,
    { what: 'the retired webhooks’ deliveries deleted' },
  );
  await sleep(500); // repeats still waiting come back once more, and are dropped
}

/** Waits until each event's delivery to its webhook has at least `count` log entries; returns them. */
async function atLeast(count: number, ...deliveries: Array<[webhookId: string, event: PlatformEvent]>) {
  return waitFor(
    async () => {
      const entries = await Promise.all(deliveries.map(([webhookId, event]) => entriesOf(webhookId, event)));
      return entries.every((list) => list.length >= count) && entries;
    },
    { timeoutMs: 15_000, what: `${count} attempts of each delivery` },
  );
}

const decisions = async (app: INestApplication, decision: string) =>
  (await app.get(DispatcherMetrics).scheduled.get()).values.find((value) => value.labels.decision === decision)
    ?.value ?? 0;

/** Two events of one transaction: 'waiting' at `position`, then 'confirmed' at `position + 1`. */
function statusPair(merchantId: string, integrationId: string, position: number | undefined = 100) {
  const uuid = randomUUID();
  const at = (offset: number) => (position === undefined ? {} : { position: position + offset });
  const waiting = transactionEvent(merchantId, integrationId, { uuid, status: 'waiting' }, at(0));
  const confirmed = transactionEvent(
    merchantId,
    integrationId,
    { uuid, status: 'confirmed' },
    { type: 'transaction.status_changed', ...at(1) },
  );
  return { uuid, waiting, confirmed };
}

/**
 * Superseded repeats (CONTRACT §5, skipSupersededRepeats): once a newer event of a transaction was delivered to a
 * webhook, the pending repeats of its older events for that webhook are not made, and each is logged once as
 * `superseded`. Newer and older by the events' positions (the outbox order), not by when they arrived.
 */
describe('webhook-dispatcher: superseded repeats (real RabbitMQ, PostgreSQL and HTTP)', () => {
  let dispatcher: INestApplication;
  let amqp: AmqpClient;
  const receiver = new Receiver(answerByStatus);

  beforeAll(async () => {
    await receiver.start();
    // An equal priority: the two-process test below adds a second dispatcher that shares the work round-robin.
    dispatcher = await startDispatcher({ WEBHOOK_RETRY_DELAYS: DELAYS, DISPATCHER_CONSUMER_PRIORITY: '500' });
    amqp = testAmqp();
    await amqp.waitForConnect();
  });
  afterAll(async () => {
    await dispatcher.close();
    await amqp.close();
    await receiver.stop();
    await closeDb();
  });

  it('a repeat of an older status is not made once a newer one was delivered: logged once as superseded, nothing sent or scheduled after it', async () => {
    // A merchant of its own: its events reach only this test's webhooks.
    const { merchantId, integrationId } = await createMerchant();
    const hook = await createWebhook({ merchantId, url: `${receiver.url}/shop`, retryOnError: true });
    const { uuid, waiting, confirmed } = statusPair(merchantId, integrationId, 100);
    const superseded = await decisions(dispatcher, 'superseded');

    await publishEvents(amqp, [waiting]);
    await waitFor(async () => (await entriesOf(hook.id, waiting)).length >= 1, { what: 'waiting failed once' });
    await publishEvents(amqp, [confirmed]);
    await waitFor(async () => (await entriesOf(hook.id, waiting)).some((log) => log.outcome === 'superseded'), {
      what: 'the waiting repeat superseded',
    });
    const sentBefore = receiver.to('/shop').filter((r) => transactionOf(r).status === 'waiting').length;
    await sleep(QUIET_MS);

    const entries = await entriesOf(hook.id, waiting);
    const failed = entries.filter((log) => log.outcome === 'failed');
    // Failed attempts (the first, and repeats made before the newer status was delivered), then one superseded
    // entry: no request, nothing scheduled, and no attempt after it.
    expect(entries.at(-1)).toMatchObject({
      outcome: 'superseded',
      status: null,
      error: null,
      next_attempt_at: null,
      attempt: failed.length + 1,
      delivery_id: failed[0].delivery_id,
    });
    expect(entries.at(-1)!.request).toMatchObject({ uuid, url: `${receiver.url}/shop`, referenceId: 'order-1001' });
    expect(entries.filter((log) => log.outcome === 'superseded')).toHaveLength(1);
    expect(failed.length).toBeGreaterThanOrEqual(1);
    expect(failed.length).toBeLessThan(11);
    expect(failed.every((log) => log.status === 500)).toBe(true);
    const sentWaiting = receiver.to('/shop').filter((r) => transactionOf(r).status === 'waiting');
    expect(sentWaiting).toHaveLength(failed.length);
    expect(sentWaiting).toHaveLength(sentBefore);
    // The newer status: delivered once, and recorded as the newest of its transaction.
    expect((await entriesOf(hook.id, confirmed)).map((log) => [log.attempt, log.outcome])).toEqual([[1, 'delivered']]);
    expect(await recordedPosition(hook.id, uuid)).toBe(101);
    expect(await decisions(dispatcher, 'superseded')).toBe(superseded + 1);

    // The merchant may still resend it: a resend is their own asking, never superseded.
    await publishDispatcherCommand(amqp, {
      type: 'delivery.resend',
      deliveryId: failed[0].delivery_id,
      webhookId: hook.id,
      merchantId,
    });
    await waitFor(async () => (await entriesOf(hook.id, waiting)).length === entries.length + 1, {
      what: 'the resend made',
    });
    expect((await entriesOf(hook.id, waiting)).at(-1)).toMatchObject({ outcome: 'failed', status: 500 });
    expect(receiver.to('/shop').filter((r) => transactionOf(r).status === 'waiting')).toHaveLength(failed.length + 1);
  });

  it('with skipSupersededRepeats false, the older status keeps being repeated after the newer one was delivered', async () => {
    // A merchant of its own: its events reach only this test's webhooks.
    const { merchantId, integrationId } = await createMerchant();
    const hook = await createWebhook({
      merchantId,
      url: `${receiver.url}/keeps-repeating`,
      retryOnError: true,
      skipSupersededRepeats: false,
    });
    const { waiting, confirmed } = statusPair(merchantId, integrationId, 200);
    await publishEvents(amqp, [waiting]);
    await atLeast(1, [hook.id, waiting]);
    await publishEvents(amqp, [confirmed]);
    await waitFor(async () => (await entriesOf(hook.id, confirmed)).length === 1, { what: 'confirmed delivered' });
    // Recorded all the same (the setting may be switched on while repeats wait).
    expect(await recordedPosition(hook.id, waiting.subjectId)).toBe(201);

    const then = (await entriesOf(hook.id, waiting)).length;
    const [entries] = await atLeast(then + 3, [hook.id, waiting]);
    expect(entries.every((log) => log.outcome === 'failed')).toBe(true);
    expect(
      receiver.to('/keeps-repeating').filter((r) => transactionOf(r).status === 'waiting').length,
    ).toBeGreaterThanOrEqual(then + 3);
    await retire(amqp, merchantId, [hook.id]);
  });

  it("only that transaction's and that webhook's repeats: another transaction's, and another webhook's, go on", async () => {
    // A merchant of its own: its events reach only this test's webhooks.
    const { merchantId, integrationId } = await createMerchant();
    const shop = await createWebhook({ merchantId, url: `${receiver.url}/scoped`, retryOnError: true });
    // Another webhook of the merchant that fails the newer status too: nothing was delivered to it.
    const down = await createWebhook({ merchantId, url: `${receiver.url}/down`, retryOnError: true });
    receiver.setResponder((request) => (request.path === '/down' ? { status: 503 } : answerByStatus(request)));
    try {
      const a = statusPair(merchantId, integrationId, 300);
      // Another transaction, whose only event is older than a's newer one (by position): still its own history.
      const b = statusPair(merchantId, integrationId, 250);
      await publishEvents(amqp, [a.waiting, b.waiting]);
      await atLeast(1, [shop.id, a.waiting]);
      await publishEvents(amqp, [a.confirmed]);
      await waitFor(async () => (await entriesOf(shop.id, a.waiting)).some((l) => l.outcome === 'superseded'), {
        what: "a's waiting superseded at the shop",
      });
      const then = Math.max(
        ...(await Promise.all([entriesOf(shop.id, b.waiting), entriesOf(down.id, a.waiting)])).map((l) => l.length),
      );
      const others = await atLeast(then + 2, [shop.id, b.waiting], [down.id, a.waiting], [down.id, a.confirmed]);
      for (const entries of others) expect(entries.every((log) => log.outcome === 'failed')).toBe(true);
      expect(await recordedPosition(down.id, a.uuid)).toBeUndefined();
      expect(await recordedPosition(shop.id, b.uuid)).toBeUndefined();
      await retire(amqp, merchantId, [shop.id, down.id]);
    } finally {
      receiver.setResponder(answerByStatus);
    }
  });

  it('orders by position, not by arrival: the newer status arrives first and is delivered, the older one after it is attempted once, and its repeat is superseded', async () => {
    // A merchant of its own: its events reach only this test's webhooks.
    const { merchantId, integrationId } = await createMerchant();
    const hook = await createWebhook({ merchantId, url: `${receiver.url}/late`, retryOnError: true });
    const { uuid, waiting, confirmed } = statusPair(merchantId, integrationId, 400);
    await publishEvents(amqp, [confirmed]);
    await waitFor(async () => (await recordedPosition(hook.id, uuid)) === 401, { what: 'confirmed recorded' });
    await publishEvents(amqp, [waiting]);
    await waitFor(async () => (await entriesOf(hook.id, waiting)).length === 2, { what: 'waiting attempted' });
    await sleep(QUIET_MS);
    // A first attempt is always made (the shop has not heard of the event; it may say more than a status); only its
    // repeat is superseded.
    expect((await entriesOf(hook.id, waiting)).map((log) => [log.attempt, log.outcome, log.status])).toEqual([
      [1, 'failed', 500],
      [2, 'superseded', null],
    ]);
    expect(receiver.to('/late').filter((r) => transactionOf(r).status === 'waiting')).toHaveLength(1);

    // An older event delivered after a newer one leaves the newer position recorded.
    const refunded = transactionEvent(
      merchantId,
      integrationId,
      { uuid, status: 'refunded' },
      { type: 'transaction.status_changed', position: 399 },
    );
    await publishEvents(amqp, [refunded]);
    await waitFor(async () => (await entriesOf(hook.id, refunded)).length === 1, { what: 'the older one delivered' });
    await sleep(100);
    expect(await recordedPosition(hook.id, uuid)).toBe(401);
  });

  it('an event without a position (published before positions) neither supersedes nor is superseded', async () => {
    // A merchant of its own: its events reach only this test's webhooks.
    const { merchantId, integrationId } = await createMerchant();
    const hook = await createWebhook({ merchantId, url: `${receiver.url}/unknown`, retryOnError: true });
    // a: the older status has no position; b: the newer one has none.
    const a = statusPair(merchantId, integrationId, 500);
    const aWaiting: PlatformEvent = { ...a.waiting, position: undefined };
    const b = statusPair(merchantId, integrationId, 600);
    const bConfirmed: PlatformEvent = { ...b.confirmed, position: undefined };
    await publishEvents(amqp, [aWaiting, b.waiting]);
    await waitFor(
      async () => (await entriesOf(hook.id, aWaiting)).length >= 1 && (await entriesOf(hook.id, b.waiting)).length >= 1,
      { what: 'both waiting failed once' },
    );
    await publishEvents(amqp, [a.confirmed, bConfirmed]);
    await waitFor(
      async () =>
        (await entriesOf(hook.id, a.confirmed)).length === 1 && (await entriesOf(hook.id, bConfirmed)).length === 1,
      { what: 'both confirmed delivered' },
    );
    const then = Math.max((await entriesOf(hook.id, aWaiting)).length, (await entriesOf(hook.id, b.waiting)).length);
    const waitings = await atLeast(then + 3, [hook.id, aWaiting], [hook.id, b.waiting]);
    for (const entries of waitings) expect(entries.every((log) => log.outcome === 'failed')).toBe(true);
    expect(await recordedPosition(hook.id, a.uuid)).toBe(501);
    expect(await recordedPosition(hook.id, b.uuid)).toBeUndefined();
    const { rows } = await db().query(`SELECT event_id, position FROM webhook_delivery WHERE webhook_id = $1`, [
      hook.id,
    ]);
    const positions = Object.fromEntries(
      rows.map((row: { event_id: string; position: string | null }) => [
        row.event_id,
        row.position === null ? null : Number(row.position),
      ]),
    );
    expect(positions).toEqual({
      [aWaiting.id]: null,
      [a.confirmed.id]: 501,
      [b.waiting.id]: 600,
      [bConfirmed.id]: null,
    });
    await retire(amqp, merchantId, [hook.id]);
  });

  it('works across dispatcher processes: each older status superseded once, whichever process delivered the newer one', async () => {
    // A merchant of its own: its events reach only this test's webhooks.
    const { merchantId, integrationId } = await createMerchant();
    const second = await startDispatcher({ WEBHOOK_RETRY_DELAYS: DELAYS, DISPATCHER_CONSUMER_PRIORITY: '500' });
    try {
      const hook = await createWebhook({ merchantId, url: `${receiver.url}/two`, retryOnError: true });
      const pairs = Array.from({ length: 20 }, (_, i) => statusPair(merchantId, integrationId, 1_000 + 10 * i));
      const before = [await decisions(dispatcher, 'superseded'), await decisions(second, 'superseded')];
      await publishEvents(
        amqp,
        pairs.map((pair) => pair.waiting),
      );
      await waitFor(async () => (await logsOf(hook.id)).length >= 20, { what: 'every waiting failed once' });
      await publishEvents(
        amqp,
        pairs.map((pair) => pair.confirmed),
      );
      await waitFor(async () => (await logsOf(hook.id)).filter((log) => log.outcome === 'superseded').length === 20, {
        timeoutMs: 15_000,
        what: 'every waiting superseded',
      });
      await sleep(QUIET_MS);
      for (const { waiting, confirmed } of pairs) {
        const entries = await entriesOf(hook.id, waiting);
        expect(entries.at(-1)).toMatchObject({ outcome: 'superseded', attempt: entries.length });
        expect(entries.slice(0, -1).every((log) => log.outcome === 'failed')).toBe(true);
        expect((await entriesOf(hook.id, confirmed)).map((log) => log.outcome)).toEqual(['delivered']);
        const sent = receiver.to('/two').filter((r) => r.headers['webhook-id'] === entries[0].delivery_id);
        expect(sent).toHaveLength(entries.length - 1);
      }
      const made = [
        (await decisions(dispatcher, 'superseded')) - before[0],
        (await decisions(second, 'superseded')) - before[1],
      ];
      // Round-robin between the two: each process superseded repeats, of newer statuses either may have delivered.
      expect(made[0] + made[1]).toBe(20);
      expect(made[0]).toBeGreaterThan(0);
      expect(made[1]).toBeGreaterThan(0);
    } finally {
      await second.close();
    }
  });

  it("forgets: a deleted webhook's subjects go with it, and subjects delivered longer ago than the retention go in the hourly maintenance", async () => {
    // A merchant of its own: its events reach only this test's webhooks.
    const { merchantId, integrationId } = await createMerchant();
    const hook = await createWebhook({ merchantId, url: `${receiver.url}/forget`, retryOnError: true });
    const { uuid, confirmed } = statusPair(merchantId, integrationId, 700);
    await publishEvents(amqp, [confirmed]);
    await waitFor(async () => (await recordedPosition(hook.id, uuid)) === 701, { what: 'confirmed recorded' });

    // Retention (30 days by default, plus the hour of slack the partitions get): a row 31 days old goes, one 29 days
    // old stays.
    const kept = await createWebhook({ merchantId, url: `${receiver.url}/kept` });
    const [old, young] = [randomUUID(), randomUUID()];
    await db().query(
      `INSERT INTO subject_delivered (webhook_id, event_type, subject_id, position, delivered_hour)
       VALUES ($1, 'transaction', $2, 5, date_trunc('hour', now() - interval '31 days')),
              ($1, 'transaction', $3, 6, date_trunc('hour', now() - interval '29 days'))`,
      [kept.id, old, young],
    );
    for (;;) {
      if ((await dispatcher.get(PartitionMaintenance).run()) !== 'skipped') break;
      await sleep(100);
    }
    expect(await recordedPosition(kept.id, old)).toBeUndefined();
    expect(await recordedPosition(kept.id, young)).toBe(6);
    expect(await recordedPosition(hook.id, uuid)).toBe(701);

    await db().query('DELETE FROM webhook WHERE id = $1', [hook.id]);
    await publishWebhookChanged(amqp, { webhookId: hook.id, merchantId });
    await waitFor(async () => (await recordedPosition(hook.id, uuid)) === undefined, {
      what: "the deleted webhook's subjects deleted",
    });
    expect(await recordedPosition(kept.id, young)).toBe(6);
  });
});

const TOKEN = 'development-platform-token';

type RunningApp = AppProcess;
const startApp = (app: 'transaction-api' | 'webhook-dispatcher', env: NodeJS.ProcessEnv) => startAppProcess(app, env);
const stopApp = stopAppProcess;

/**
 * The issue's case end to end (#21), with transaction-api and the dispatcher as real processes: a shop plugin that,
 * like WooCommerce's, reads the transaction from the read API when a webhook arrives and answers 500 when the
 * webhook's status is not the transaction's status any more. After a burst of status changes, the outdated statuses'
 * webhooks fail; once the newest status was delivered, none of them is repeated.
 */
describe('superseded repeats end to end: transaction-api, the outbox and the dispatcher as processes', () => {
  let api: RunningApp | undefined;
  let dispatcher: RunningApp | undefined;
  const shop = new Receiver();

  beforeAll(async () => {
    await shop.start();
    [api, dispatcher] = await Promise.all([
      startApp('transaction-api', dispatcherEnv({ API_RATE_LIMIT: '1000000', OUTBOX_POLL_MS: '100' })),
      startApp(
        'webhook-dispatcher',
        dispatcherEnv({ WEBHOOK_RETRY_DELAYS: Array(10).fill('300ms').join(','), WEBHOOK_TIMEOUT_MS: '5000' }),
      ),
    ]);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([stopApp(api), stopApp(dispatcher)]);
    await shop.stop();
    await closeDb();
  });

  const platform = async <T>(method: string, path: string, body: unknown): Promise<T> => {
    const response = await fetch(`${api!.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return JSON.parse(text) as T;
  };

  it('a shop that answers outdated statuses with 500: after a burst of status changes, no outdated status is repeated once the newest was delivered', async () => {
    const merchant = await platform<{ id: string }>('POST', '/internal/merchants', { name: 'WooCommerce shop' });
    const integration = await platform<{ id: string; apiKey: string }>(
      'POST',
      `/internal/merchants/${merchant.id}/integrations`,
      { name: 'Shop' },
    );
    const hook = await createWebhook({
      merchantId: merchant.id,
      url: `${shop.url}/woocommerce`,
      retryOnError: true,
      events: ['transaction'],
    });
    // The plugin: the webhook only says which transaction changed; the read API says what is true now.
    shop.setResponder(async (request) => {
      const told = transactionOf(request);
      const response = await fetch(`${api!.baseUrl}/v1.17/transactions/${told.uuid}`, {
        headers: { authorization: `Bearer ${integration.apiKey}` },
      });
      const current = (await response.json()) as { status: string };
      return current.status === told.status ? { status: 200 } : { status: 500, body: 'outdated status' };
    });

    // The burst: ten payments, each created waiting and moved on at once, to authorized, to confirmed.
    const flow = ['authorized', 'confirmed'];
    const uuids = await Promise.all(
      Array.from({ length: 10 }, async (_, i) => {
        const { uuid } = await platform<{ uuid: string }>('POST', '/internal/transactions', {
          merchantId: merchant.id,
          integrationId: integration.id,
          referenceId: `order-${i}`,
          status: 'waiting',
          psp: 'Payrexx Direct',
          type: 'e-commerce',
          paymentMethod: 'visa',
          amount: 1990,
          currency: 'CHF',
          authentication: null,
        });
        for (const status of flow) await platform('POST', `/internal/transactions/${uuid}/status`, { status });
        return uuid;
      }),
    );

    // Every delivery settled: delivered, superseded, or (a bug here) failed with its repeats used up.
    const settled = async () => {
      const logs = await logsOf(hook.id);
      const last = new Map<string, LogRow>();
      for (const log of logs) last.set(log.delivery_id, log);
      return last.size === uuids.length * 3 && [...last.values()].every((log) => log.next_attempt_at === null)
        ? logs
        : undefined;
    };
    await waitFor(settled, { timeoutMs: 30_000, intervalMs: 200, what: 'every delivery settled' });
    await sleep(QUIET_MS);
    const logs = (await settled())!;
    const { rows: timed } = await db().query<{ id: string; created_at: Date }>(
      'SELECT id, created_at FROM webhook_log WHERE webhook_id = $1',
      [hook.id],
    );
    const startedAt = new Map(timed.map((row) => [row.id, row.created_at.getTime()]));

    let outdatedFailures = 0;
    let superseded = 0;
    let latestRepeatAfterNewest = -Infinity;
    for (const uuid of uuids) {
      const mine = logs.filter((log) => log.request.uuid === uuid);
      const byDelivery = new Map<string, LogRow[]>();
      for (const log of mine) byDelivery.set(log.delivery_id, [...(byDelivery.get(log.delivery_id) ?? []), log]);
      const deliveries = [...byDelivery.values()];
      expect(deliveries).toHaveLength(3);
      // The newest status (confirmed) is what the API says: delivered at its first attempt.
      const newest = deliveries.find((entries) => sentStatus(shop, entries[0].delivery_id) === 'confirmed')!;
      expect(newest.map((log) => [log.attempt, log.outcome])).toEqual([[1, 'delivered']]);
      const newestDone = startedAt.get(newest[0].id)! + newest[0].duration_ms;
      for (const entries of deliveries) {
        if (entries === newest) continue;
        const failed = entries.filter((log) => log.outcome === 'failed');
        outdatedFailures += failed.length;
        if (failed.length === 0) {
          // It arrived while its status was still current.
          expect(entries.map((log) => log.outcome)).toEqual(['delivered']);
          continue;
        }
        // Failed as outdated, then superseded once; never repeated until its repeats ran out.
        expect(entries.at(-1)).toMatchObject({ outcome: 'superseded', status: null, next_attempt_at: null });
        expect(entries.filter((log) => log.outcome === 'superseded')).toHaveLength(1);
        expect(failed.every((log) => log.status === 500)).toBe(true);
        superseded += 1;
        for (const log of failed.filter((entry) => entry.attempt > 1)) {
          latestRepeatAfterNewest = Math.max(latestRepeatAfterNewest, startedAt.get(log.id)! - newestDone);
        }
      }
    }
    process.stdout.write(
      `superseded end to end: ${uuids.length} payments, ${outdatedFailures} failed attempts of outdated statuses, ` +
        `${superseded} deliveries superseded; latest outdated repeat ` +
        (latestRepeatAfterNewest === -Infinity
          ? 'none (each was superseded at its first repeat)\n'
          : `started ${latestRepeatAfterNewest} ms after the newest status was delivered (negative: before)\n`),
    );
    // The burst made outdated webhooks (the scenario happened), and none was repeated after the newest was delivered
    // (beyond the moment its log entry takes to be written: the log is written in batches, 20 ms apart).
    expect(superseded).toBeGreaterThan(0);
    expect(latestRepeatAfterNewest).toBeLessThan(300);
  }, 90_000);
});

/** The status a delivery's requests carried (every attempt of a delivery sends the same body). */
function sentStatus(receiver: Receiver, deliveryId: string): string | undefined {
  const request = receiver.requests.find((r) => r.headers['webhook-id'] === deliveryId);
  return request && transactionOf(request).status;
}
