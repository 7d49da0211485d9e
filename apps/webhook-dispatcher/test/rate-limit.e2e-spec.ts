import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import type { AmqpClient } from '#messaging';
import { waitFor } from '#testing';
import { HttpSender } from '../src/delivery/http.sender.js';
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
} from './dispatcher.harness.js';

/** The most arrivals in any window of `windowMs` (each window starting at an arrival). */
function mostInAnyWindow(times: number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  let end = 0;
  for (let start = 0; start < sorted.length; start += 1) {
    while (end < sorted.length && sorted[end] < sorted[start] + windowMs) end += 1;
    most = Math.max(most, end - start);
  }
  return most;
}

describe('maxPerSecond over two dispatcher processes (real RabbitMQ, PostgreSQL)', () => {
  const dispatchers: INestApplication[] = [];
  let amqp: AmqpClient;
  const receiver = new Receiver();
  const sentBy = [0, 0];
  let merchantId: string;
  let integrationId: string;

  beforeAll(async () => {
    await receiver.start();
    // A small prefetch each, so that neither process takes every delivery of the burst.
    const settings = { DISPATCHER_CONCURRENCY: '8' };
    dispatchers.push(await startDispatcher(settings), await startDispatcher(settings));
    // Which process sent each request to the limited webhook.
    dispatchers.forEach((dispatcher, index) => {
      const sender = dispatcher.get(HttpSender);
      const send = sender.send.bind(sender);
      sender.send = (url, headers, body, lane) => {
        if (url.endsWith('/limited')) sentBy[index] += 1;
        return send(url, headers, body, lane);
      };
    });
    amqp = testAmqp();
    await amqp.waitForConnect();
    ({ merchantId, integrationId } = await createMerchant());
  });
  afterAll(async () => {
    for (const dispatcher of dispatchers) await dispatcher.close();
    await amqp.close();
    await receiver.stop();
    await closeDb();
  });

  it("lets at most 5 a second reach a webhook limited to 5 (55 over any 10 s, the contract's 10 %), loses none, and holds up no other", async () => {
    receiver.setResponder(() => ({ status: 200 }));
    const limited = await createWebhook({ merchantId, url: `${receiver.url}/limited`, maxPerSecond: 5 });
    const free = await createWebhook({ merchantId, url: `${receiver.url}/free` });
    const publishedAt = Date.now();
    await publishEvents(
      amqp,
      Array.from({ length: 100 }, () => transactionEvent(merchantId, integrationId)),
    );
    // The webhook without a limit gets its 100 at once, while the limited one's backlog drains.
    await waitFor(() => receiver.to('/free').length === 100, { timeoutMs: 10_000, what: 'the free webhook’s 100' });
    const freeDoneAfter = Date.now() - publishedAt;
    expect(receiver.to('/limited').length).toBeLessThan(60);
    await waitFor(() => receiver.to('/limited').length >= 100, {
      timeoutMs: 40_000,
      intervalMs: 500,
      what: 'all 100 at the limited webhook',
    });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const arrivals = receiver.to('/limited').map((request) => request.receivedAt);
    expect(arrivals).toHaveLength(100); // each once: nothing lost, nothing sent twice
    expect(mostInAnyWindow(arrivals, 10_000)).toBeLessThanOrEqual(55);
    // It drained at the limit: 100 at 5 a second take about 20 s.
    const span = Math.max(...arrivals) - Math.min(...arrivals);
    expect(span).toBeGreaterThan(18_000);
    expect(span).toBeLessThan(30_000);
    expect(freeDoneAfter).toBeLessThan(10_000);
    // One attempt each, all delivered; both processes took part (the limit is their sum).
    expect(sentBy[0] + sentBy[1]).toBe(100);
    expect(Math.min(...sentBy)).toBeGreaterThan(0);
    const logs = await logsOf(limited.id);
    expect(logs.filter((log) => log.outcome === 'delivered')).toHaveLength(100);
    const { rows } = await db().query(`SELECT count(*)::int AS n FROM webhook_log WHERE webhook_id = $1`, [free.id]);
    expect(rows[0].n).toBe(100);
  }, 60_000);
});
