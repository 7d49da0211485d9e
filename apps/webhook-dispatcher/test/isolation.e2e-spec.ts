import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import type { AmqpClient } from '#messaging';
import { waitFor } from '#testing';
import {
  Receiver,
  closeDb,
  createMerchant,
  createWebhook,
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
