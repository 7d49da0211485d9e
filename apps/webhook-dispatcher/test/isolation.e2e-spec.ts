import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { slowLaneShard, type AmqpClient } from '#messaging';
import { waitFor } from '#testing';
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
import { HttpSender } from '../src/delivery/http.sender.js';

describe('isolation: a webhook that never answers does not delay the others', () => {
  let dispatcher: INestApplication;
  let amqp: AmqpClient;
  /** Which connection pool (lane) each POST went through, by path. */
  const lanes: Array<{ path: string; lane: string }> = [];
  const receiver = new Receiver((request) => (request.path === '/black-hole' ? 'hang' : { status: 200 }));

  beforeAll(async () => {
    await receiver.start();
    // Long timeout and a small prefetch: without isolation the hanging webhook would hold every slot.
    dispatcher = await startDispatcher({ WEBHOOK_TIMEOUT_MS: '10000', DISPATCHER_CONCURRENCY: '40' });
    const sender = dispatcher.get(HttpSender);
    const send = sender.send.bind(sender);
    sender.send = (url, headers, body, lane = 'normal') => {
      lanes.push({ path: new URL(url).pathname, lane });
      return send(url, headers, body, lane);
    };
    amqp = testAmqp();
    await amqp.waitForConnect();
  });
  afterAll(async () => {
    await dispatcher.close();
    await amqp.close();
    await receiver.stop();
    await closeDb();
  });

  it('delivers 200 events to the healthy webhook promptly while the black hole holds its connections', async () => {
    const { merchantId, integrationId } = await createMerchant();
    await createWebhook({ merchantId, url: `${receiver.url}/black-hole` });
    await createWebhook({ merchantId, url: `${receiver.url}/healthy` });
    const started = Date.now();
    const events = Array.from({ length: 200 }, () => transactionEvent(merchantId, integrationId));
    await publishEvents(amqp, events);
    await waitFor(() => receiver.to('/healthy').length === 200, { timeoutMs: 8_000, what: 'all healthy deliveries' });
    const took = Date.now() - started;
    // Well before the black hole's first timeout (10 s): its deliveries never blocked the healthy ones.
    expect(took).toBeLessThan(5_000);
    // The black hole's deliveries are attempted too (16 at once in the delivery queue, the rest in the slow lane).
    expect(receiver.to('/black-hole').length).toBeGreaterThanOrEqual(16);
    // The slow lane's hanging sockets live in a pool of their own, never in the one healthy requests search.
    expect(lanes.filter((l) => l.path === '/healthy').every((l) => l.lane === 'normal')).toBe(true);
    expect(lanes.filter((l) => l.path === '/black-hole' && l.lane === 'slow').length).toBeGreaterThan(0);
  });
});

describe('isolation in the slow lane: a hanging webhook’s backlog does not hold up other slow webhooks', () => {
  let dispatcher: INestApplication;
  let amqp: AmqpClient;
  const receiver = new Receiver((request, count) =>
    // The black hole never answers; the other webhook hung once (so it is slow for a minute) and is fast since.
    request.path === '/hanging' || (request.path === '/was-slow' && count === 1) ? 'hang' : { status: 200 },
  );

  beforeAll(async () => {
    await receiver.start();
    // 32 slow-lane slots per process, 4 per shard: far fewer than the black hole's deliveries, so it builds a
    // backlog — as a busy merchant's endpoint that hangs does with the default 2,000.
    dispatcher = await startDispatcher({ WEBHOOK_TIMEOUT_MS: '3000', DISPATCHER_SLOW_LANE_CONCURRENCY: '32' });
    amqp = testAmqp();
    await amqp.waitForConnect();
  });
  afterAll(async () => {
    await dispatcher.close();
    await amqp.close();
    await receiver.stop();
    await closeDb();
  });

  it('delivers the slow webhook’s 100 deliveries at once while the black hole’s 100 wait for its slots', async () => {
    const { merchantId, integrationId } = await createMerchant();
    const hangingId = randomUUID();
    let otherId = randomUUID();
    while (slowLaneShard(otherId) === slowLaneShard(hangingId)) otherId = randomUUID();
    const hanging = await createWebhook({ id: hangingId, merchantId, url: `${receiver.url}/hanging` });
    const wasSlow = await createWebhook({ id: otherId, merchantId, url: `${receiver.url}/was-slow` });
    // One event makes both slow: each one's attempt hangs until the timeout.
    await publishEvents(amqp, [transactionEvent(merchantId, integrationId)]);
    await waitFor(async () => (await logsOf(wasSlow.id)).length === 1, { timeoutMs: 10_000, what: 'the timeout' });

    const started = Date.now();
    await publishEvents(
      amqp,
      Array.from({ length: 100 }, () => transactionEvent(merchantId, integrationId)),
    );
    await waitFor(() => receiver.to('/was-slow').length === 101, {
      timeoutMs: 20_000,
      what: 'the slow webhook’s 100 deliveries',
    });
    // In one first-in-first-out slow lane the two webhooks' deliveries alternate, and every 32 of them waited for
    // 16 of the black hole's to time out (3 s): about 10 s. In shards of their own they do not wait for it.
    expect(Date.now() - started).toBeLessThan(7_000);
    // The black hole is still attempted, four at a time in its shard.
    expect(receiver.to('/hanging').length).toBeGreaterThan(1);
    expect(receiver.to('/hanging').length).toBeLessThan(101);

    // Its backlog goes with it (deleting a webhook drops its waiting deliveries).
    await db().query('DELETE FROM webhook WHERE id = ANY($1)', [[hanging.id, wasSlow.id]]);
  }, 40_000);
});
