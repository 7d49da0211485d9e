import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { AmqpClient, publishWebhookChanged, QUEUES, SLOW_LANE_QUEUES } from '#messaging';
import { waitFor } from '#testing';
import { DispatcherMetrics } from '../src/metrics/dispatcher.metrics.js';
import {
  Receiver,
  closeDb,
  createMerchant,
  createWebhook,
  db,
  logsOf,
  publishEvents,
  startDispatcher,
  testAmqp,
  transactionEvent,
  type ReceivedRequest,
} from './dispatcher.harness.js';

/** A rate-limited backlog (the 20,000 takes a minute to fan out on a 2-core machine; 10,000 half that). */
const BACKLOG = 10_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The deliveries (by `webhook-id`) a path received, each once; fails when one arrived twice. */
function distinct(requests: ReceivedRequest[]): Set<string> {
  const ids = requests.map((request) => String(request.headers['webhook-id']));
  expect(new Set(ids).size).toBe(ids.length);
  return new Set(ids);
}

/**
 * Rate limits that hold under a backlog, and Retry-After (issue 31): a rate-limited webhook's deliveries that cannot
 * start soon wait in the dispatcher's schedule (delivery.delivery_wait), released at the webhook's current limit.
 */
describe('the schedule of waiting deliveries (real RabbitMQ, PostgreSQL)', () => {
  let dispatcher: INestApplication;
  let amqp: AmqpClient;
  let changes: AmqpClient;
  const receiver = new Receiver();
  // Each test its own merchant: an event reaches every webhook of its merchant.
  let merchantId: string;
  let integrationId: string;
  beforeEach(async () => {
    ({ merchantId, integrationId } = await createMerchant());
  });

  beforeAll(async () => {
    const failedOnce = new Set<string>();
    receiver.setResponder((request) => {
      if (request.path.startsWith('/slow')) return { status: 200, delayMs: 1_500 };
      if (request.path === '/late-repeat') {
        // Each delivery's first attempt fails; its repeat is delivered.
        const id = String(request.headers['webhook-id']);
        if (failedOnce.has(id)) return { status: 200 };
        failedOnce.add(id);
        return { status: 500 };
      }
      return { status: 200 };
    });
    await receiver.start();
    // A receiver that answers in 1.5 s must not time out; repeats after 1 s, then 4 s (Retry-After below).
    dispatcher = await startDispatcher({ WEBHOOK_TIMEOUT_MS: '5000', WEBHOOK_RETRY_DELAYS: '1s,4s' });
    amqp = testAmqp();
    changes = testAmqp('test-rate-changes');
    await Promise.all([amqp.waitForConnect(), changes.waitForConnect()]);
  });
  afterAll(async () => {
    await dispatcher.close();
    await amqp.close();
    await changes.close();
    await receiver.stop();
    await closeDb();
  });

  /** Changes a webhook as webhook-config does: its row, then the change message every dispatcher refreshes on. */
  async function change(webhookId: string, set: string, values: unknown[] = []): Promise<number> {
    await db().query(`UPDATE webhook SET ${set} WHERE id = $1`, [webhookId, ...values]);
    await publishWebhookChanged(changes, { webhookId, merchantId });
    return Date.now();
  }
  const waitingOf = async (webhookId: string) =>
    (await db().query(`SELECT count(*)::int AS n FROM delivery.delivery_wait WHERE webhook_id = $1`, [webhookId]))
      .rows[0].n as number;
  const events = (count: number) =>
    publishEvents(
      amqp,
      Array.from({ length: count }, () => transactionEvent(merchantId, integrationId)),
    );

  it('a raised limit releases the deliveries already waiting: 600 at 2 a second, raised to 1,000, all arrive within 10 s', async () => {
    const hook = await createWebhook({ merchantId, url: `${receiver.url}/raised`, maxPerSecond: 2 });
    await events(600);
    await waitFor(async () => (await waitingOf(hook.id)) >= 590, {
      timeoutMs: 30_000,
      intervalMs: 200,
      what: 'the 600 waiting',
    });
    await sleep(2_000);
    const before = receiver.to('/raised').length;
    expect(before).toBeLessThan(20);
    const raisedAt = await change(hook.id, 'max_per_second = $2', [1_000]);
    await waitFor(() => receiver.to('/raised').length >= 600, {
      timeoutMs: 15_000,
      intervalMs: 100,
      what: 'all 600 after the raise',
    });
    expect(Date.now() - raisedAt).toBeLessThan(10_000);
    await sleep(500);
    expect(distinct(receiver.to('/raised')).size).toBe(600);
    expect(await waitingOf(hook.id)).toBe(0);
  }, 60_000);

  it('a lowered limit applies to the waiting deliveries within 10 s, and a removed one releases the backlog', async () => {
    const hook = await createWebhook({ merchantId, url: `${receiver.url}/lowered`, maxPerSecond: 50 });
    await events(600);
    await waitFor(() => receiver.to('/lowered').length >= 50, { timeoutMs: 20_000, what: 'the first 50' });
    const loweredAt = await change(hook.id, 'max_per_second = $2', [2]);
    await sleep(8_000);
    // From 1 s after the change (what was booked before it, at most half a second ahead) at 2 a second.
    // From 3 s after the change (what was booked before it, or released and still on its way, has gone) at 2 a second.
    const after = receiver
      .to('/lowered')
      .filter((r) => r.receivedAt >= loweredAt + 3_000 && r.receivedAt < loweredAt + 8_000);
    expect(after.length).toBeGreaterThanOrEqual(8);
    expect(after.length).toBeLessThanOrEqual(13);
    expect(await waitingOf(hook.id)).toBeGreaterThan(300);

    const removedAt = await change(hook.id, 'max_per_second = NULL');
    await waitFor(() => receiver.to('/lowered').length >= 600, {
      timeoutMs: 10_000,
      intervalMs: 100,
      what: 'the backlog released',
    });
    expect(Date.now() - removedAt).toBeLessThan(10_000);
    await sleep(500);
    expect(distinct(receiver.to('/lowered')).size).toBe(600);
  }, 60_000);

  it("a disabled webhook's waiting deliveries are not sent: each is logged skipped", async () => {
    const hook = await createWebhook({ merchantId, url: `${receiver.url}/disabled`, maxPerSecond: 2 });
    await events(100);
    await waitFor(async () => (await waitingOf(hook.id)) >= 90, { timeoutMs: 20_000, what: 'the 100 waiting' });
    const disabledAt = await change(hook.id, `enabled = false, disabled_reason = 'manual'`);
    await waitFor(async () => (await waitingOf(hook.id)) === 0, { timeoutMs: 10_000, what: 'the schedule emptied' });
    await sleep(1_500);
    const sent = receiver.to('/disabled');
    // What had booked its start before the change (at most the pump's window ahead) may still go; nothing after.
    expect(sent.filter((r) => r.receivedAt > disabledAt + 1_000)).toEqual([]);
    const logs = await logsOf(hook.id);
    expect(logs.filter((log) => log.outcome === 'delivered')).toHaveLength(sent.length);
    expect(logs.filter((log) => log.outcome === 'skipped')).toHaveLength(100 - sent.length);
    expect(logs).toHaveLength(100);
  }, 60_000);

  it('a receiver that answers in 1.5 s at maxPerSecond 4 gets at least 90 % of its limit (each delivery books once)', async () => {
    const hook = await createWebhook({ merchantId, url: `${receiver.url}/slow`, maxPerSecond: 4 });
    const startedAt = Date.now();
    await events(100);
    await sleep(23_000);
    // Steady state: from 3 s in, over 20 s.
    const inWindow = receiver
      .to('/slow')
      .filter((r) => r.receivedAt >= startedAt + 3_000 && r.receivedAt < startedAt + 23_000);
    expect(inWindow.length).toBeGreaterThanOrEqual(72); // 3.6 a second
    expect(inWindow.length).toBeLessThanOrEqual(88); // 4 a second, 10 % over
    await change(hook.id, 'max_per_second = NULL');
    await waitFor(() => receiver.to('/slow').length >= 100, { timeoutMs: 15_000, what: 'the rest' });
    expect(distinct(receiver.to('/slow')).size).toBe(100);
  }, 60_000);

  it("a repeat made later than scheduled (its webhook's limit) shows its real time as the entry's nextAttemptAt", async () => {
    // At 1 a second, 6 first attempts take 6 s; each repeat is due 1 s after its failure, behind the starts already
    // booked for the first attempts: it is made seconds later than its failure's schedule said.
    const hook = await createWebhook({
      merchantId,
      url: `${receiver.url}/late-repeat`,
      maxPerSecond: 1,
      retryOnError: true,
    });
    await events(6);
    const logs = await waitFor(
      async () => {
        const rows = await logsOf(hook.id);
        return rows.filter((row) => row.outcome === 'delivered').length === 6 && rows;
      },
      { timeoutMs: 30_000, what: 'six deliveries, each failed once and repeated' },
    );
    const byId = new Map<string, number[]>();
    for (const request of receiver.to('/late-repeat')) {
      const id = String(request.headers['webhook-id']);
      byId.set(id, [...(byId.get(id) ?? []), request.receivedAt]);
    }
    let latest = 0;
    for (const failed of logs.filter((row) => row.outcome === 'failed')) {
      const [first, repeat] = byId.get(failed.delivery_id)!;
      const promised = failed.next_attempt_at!.getTime();
      // The entry says when the repeat was really made (its booked start), not the schedule's 1 s.
      expect(repeat).toBeGreaterThanOrEqual(promised - 50);
      expect(repeat - promised).toBeLessThan(600);
      latest = Math.max(latest, promised - first);
    }
    // Some repeat did wait behind the limit (else this proves nothing).
    expect(latest).toBeGreaterThan(2_500);
  }, 60_000);

  it("a backlog of 10,000 waits in the table, costs no message a second, and another merchant's webhook keeps its latency", async () => {
    const hook = await createWebhook({ merchantId, url: `${receiver.url}/backlog`, maxPerSecond: 1 });
    const other = await createMerchant();
    await createWebhook({ merchantId: other.merchantId, url: `${receiver.url}/neighbour` });
    for (let i = 0; i < BACKLOG / 1_000; i += 1) await events(1_000);
    // All fanned out: in the table, or the few sent at 1 a second meanwhile.
    await waitFor(async () => (await waitingOf(hook.id)) + receiver.to('/backlog').length >= BACKLOG, {
      timeoutMs: 90_000,
      intervalMs: 500,
      what: 'the backlog waiting',
    });
    const metrics = dispatcher.get(DispatcherMetrics);
    const rateLimited = async () =>
      (await metrics.scheduled.get()).values.find((v) => v.labels.decision === 'rate_limited')?.value ?? 0;
    const limitedBefore = await rateLimited();
    const depths: number[] = [];
    // Meanwhile the neighbour: 20 payments a second for 3 s.
    const latencies: number[] = [];
    for (let i = 0; i < 60; i += 1) {
      const event = transactionEvent(other.merchantId, other.integrationId);
      const sentAt = Date.now();
      void publishEvents(amqp, [event]);
      void waitFor(() => receiver.to('/neighbour').find((r) => r.body.includes(event.subjectId)), {
        timeoutMs: 10_000,
        intervalMs: 5,
      }).then((r) => latencies.push(r.receivedAt - sentAt));
      if (i % 10 === 0) {
        depths.push(await amqp.queueDepth(QUEUES.deliveries));
        for (const queue of SLOW_LANE_QUEUES) depths.push(await amqp.queueDepth(queue));
      }
      await sleep(50);
    }
    await waitFor(() => latencies.length === 60, { timeoutMs: 10_000, what: "the neighbour's 60" });
    // Nothing cycles: no delivery went into the schedule again, the queues stay empty, the table holds the backlog.
    expect((await rateLimited()) - limitedBefore).toBe(0);
    expect(Math.max(...depths)).toBeLessThanOrEqual(5);
    expect(await waitingOf(hook.id)).toBeGreaterThan(BACKLOG - 200);
    latencies.sort((a, b) => a - b);
    expect(latencies[Math.ceil(latencies.length * 0.99) - 1]).toBeLessThan(250);
    // The backlog drains at its limit: about 1 a second.
    expect(receiver.to('/backlog').length).toBeLessThan(120);
    await db().query(`DELETE FROM delivery.delivery_wait WHERE webhook_id = $1`, [hook.id]);
  }, 180_000);
});

describe('Retry-After on 429 and 503 (real RabbitMQ, PostgreSQL)', () => {
  let dispatcher: INestApplication;
  let amqp: AmqpClient;
  const receiver = new Receiver();
  let merchantId: string;
  let integrationId: string;
  const retryDate = new Map<string, number>();

  beforeAll(async () => {
    receiver.setResponder((request, count) => {
      if (count > 1) return { status: 200 };
      switch (request.path) {
        case '/seconds':
          return { status: 429, headers: { 'retry-after': '3' } };
        case '/date': {
          const at = Math.ceil((Date.now() + 3_000) / 1_000) * 1_000;
          retryDate.set(request.path, at);
          return { status: 503, headers: { 'retry-after': new Date(at).toUTCString() } };
        }
        case '/too-long':
          return { status: 429, headers: { 'retry-after': '3600' } };
        default:
          return { status: 429 };
      }
    });
    await receiver.start();
    dispatcher = await startDispatcher({ WEBHOOK_RETRY_DELAYS: '1s,4s' });
    amqp = testAmqp();
    await amqp.waitForConnect();
    ({ merchantId, integrationId } = await createMerchant());
  });
  afterAll(async () => {
    await dispatcher.close();
    await amqp.close();
    await receiver.stop();
    await closeDb();
  });

  it('repeats no earlier than asked (seconds or HTTP-date), at most the next delay later, and logs the real next attempt time', async () => {
    const paths = ['/seconds', '/date', '/too-long', '/plain'];
    const hooks = new Map<string, string>();
    for (const path of paths) {
      const hook = await createWebhook({ merchantId, url: `${receiver.url}${path}`, retryOnError: true });
      hooks.set(path, hook.id);
    }
    await publishEvents(amqp, [transactionEvent(merchantId, integrationId)]);
    await waitFor(() => paths.every((path) => receiver.to(path).length === 2), {
      timeoutMs: 15_000,
      intervalMs: 50,
      what: 'each repeated once',
    });
    const gap = (path: string) => receiver.to(path)[1].receivedAt - receiver.to(path)[0].receivedAt;
    expect(gap('/seconds')).toBeGreaterThanOrEqual(3_000);
    expect(gap('/seconds')).toBeLessThan(3_600);
    expect(receiver.to('/date')[1].receivedAt).toBeGreaterThanOrEqual(retryDate.get('/date')!);
    expect(receiver.to('/date')[1].receivedAt).toBeLessThan(retryDate.get('/date')! + 600);
    // Asked for an hour: the scheduled 1 s plus the next delay (4 s) at most.
    expect(gap('/too-long')).toBeGreaterThanOrEqual(5_000);
    expect(gap('/too-long')).toBeLessThan(5_600);
    // Without Retry-After: the schedule's 1 s.
    expect(gap('/plain')).toBeGreaterThanOrEqual(1_000);
    expect(gap('/plain')).toBeLessThan(1_600);

    for (const path of paths) {
      const logs = await waitFor(
        async () => {
          const rows = await logsOf(hooks.get(path)!);
          return rows.length === 2 && rows;
        },
        { what: `the log of ${path}` },
      );
      // Each failure counts: a failed entry, then the delivered repeat.
      expect(logs.map((log) => [log.attempt, log.outcome, log.status])).toEqual([
        [1, 'failed', path === '/date' ? 503 : 429],
        [2, 'delivered', 200],
      ]);
      const promised = logs[0].next_attempt_at!.getTime();
      const made = receiver.to(path)[1].receivedAt;
      expect(made).toBeGreaterThanOrEqual(promised - 50);
      expect(made - promised).toBeLessThan(600);
    }
  }, 60_000);
});
