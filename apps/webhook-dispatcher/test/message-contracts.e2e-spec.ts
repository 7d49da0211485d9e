import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { Logger, type INestApplication } from '@nestjs/common';
import amqplib from 'amqplib';
import { randomUUID } from 'node:crypto';
import {
  EXCHANGES,
  PARKED_REASON_HEADER,
  QUEUES,
  ROUTING_KEYS,
  SLOW_LANE_QUEUES,
  retryQueueName,
  type AmqpClient,
} from '#messaging';
import { testEnv, waitFor } from '#testing';
import {
  Receiver,
  closeDb,
  createMerchant,
  createWebhook,
  logsOf,
  publishEvents,
  startDispatcher,
  testAmqp,
  transactionEvent,
  publishDelivery,
} from './dispatcher.harness.js';

/** What a garbage body may carry that must never reach a log line. */
const CUSTOMER_DATA = 'jane.customer@example.com';

type Send = (amqp: AmqpClient, body: Buffer, messageId: string) => Promise<void>;

interface Garbage {
  id: string;
  publish: (amqp: AmqpClient) => Promise<void>;
  body: string;
  parkedIn: string;
  reason: string;
}

/** Publishes to an exchange (or a queue, through the default exchange), with the delivery headers if given. */
function publishTo(exchange: string, routingKey: string, attempt?: unknown, guard?: unknown): Send {
  const headers: Record<string, unknown> = {};
  if (attempt !== undefined) headers['x-attempt'] = attempt;
  if (guard !== undefined) headers['x-guard'] = guard;
  return (amqp, body, messageId) => amqp.publish(exchange, routingKey, body, { messageId, headers });
}

/**
 * Takes the parked messages among `ids` off the parked queues (acks them); leaves any other message where it is
 * (other test files' messages go back to their queue when the connection closes).
 */
async function takeParked(ids: Set<string>): Promise<Map<string, { queue: string; body: string; reason: unknown }>> {
  const found = new Map<string, { queue: string; body: string; reason: unknown }>();
  const connection = await amqplib.connect(testEnv().amqpUrl);
  try {
    const channel = await connection.createChannel();
    for (const queue of [QUEUES.parkedEvents, QUEUES.parkedDeliveries, QUEUES.parkedConfig, QUEUES.parkedCommands]) {
      for (let message = await channel.get(queue); message; message = await channel.get(queue)) {
        const id = message.properties.messageId as string | undefined;
        if (id === undefined || !ids.has(id)) continue;
        if (found.has(id)) throw new Error(`message ${id} was parked twice`);
        found.set(id, {
          queue,
          body: message.content.toString(),
          reason: message.properties.headers?.[PARKED_REASON_HEADER],
        });
        channel.ack(message);
      }
    }
  } finally {
    await connection.close();
  }
  return found;
}

describe('webhook-dispatcher: a message that breaks its contract is parked with its reason, and work goes on', () => {
  let dispatcher: INestApplication;
  let amqp: AmqpClient;
  const receiver = new Receiver();
  let merchantId: string;
  let integrationId: string;
  const warn = jest.spyOn(Logger.prototype, 'warn');
  const error = jest.spyOn(Logger.prototype, 'error');

  beforeAll(async () => {
    await receiver.start();
    dispatcher = await startDispatcher();
    amqp = testAmqp();
    await amqp.waitForConnect();
    ({ merchantId, integrationId } = await createMerchant());
  });
  afterAll(async () => {
    warn.mockRestore();
    error.mockRestore();
    await dispatcher.close();
    await amqp.close();
    await receiver.stop();
    await closeDb();
  });

  it('parks garbage from every queue it consumes (events, deliveries, each slow-lane shard, config, commands), then delivers', async () => {
    const run = randomUUID().slice(0, 8);
    const garbage: Garbage[] = [];
    const add = (name: string, parkedIn: string, reason: string, send: Send, body = '') => {
      const id = `${run}-${name}`;
      garbage.push({ id, parkedIn, reason, body, publish: (client) => send(client, Buffer.from(body), id) });
    };
    /** The three kinds of garbage (not JSON, another shape, an unknown version) for one queue. */
    const threeKinds = (queue: string, name: string, parkedIn: string, send: Send, valid: object) => {
      add(`${queue}-not-json`, parkedIn, `${name} is not JSON`, send, `{"email": "${CUSTOMER_DATA}"`);
      add(
        `${queue}-shape`,
        parkedIn,
        `invalid ${name}: / must have required property`,
        send,
        JSON.stringify({ email: CUSTOMER_DATA }),
      );
      add(
        `${queue}-version`,
        parkedIn,
        `unknown version 99 of the ${name}`,
        send,
        JSON.stringify({ ...valid, v: 99, email: CUSTOMER_DATA }),
      );
    };
    const event = transactionEvent(merchantId, integrationId);
    threeKinds('events', 'platform event', QUEUES.parkedEvents, publishTo(EXCHANGES.events, event.type), event);
    const validDelivery = { deliveryId: randomUUID(), manual: true };
    for (const queue of [QUEUES.deliveries, ...SLOW_LANE_QUEUES]) {
      threeKinds(queue, 'delivery message', QUEUES.parkedDeliveries, publishTo('', queue, 1), validDelivery);
    }
    threeKinds('config', 'webhook change', QUEUES.parkedConfig, publishTo(EXCHANGES.config, ''), {
      type: 'webhook.changed',
      webhookId: randomUUID(),
      merchantId,
    });
    threeKinds('commands', 'dispatcher command', QUEUES.parkedCommands, publishTo(EXCHANGES.commands, 'webhook.test'), {
      type: 'webhook.test',
      deliveryId: randomUUID(),
      webhookId: randomUUID(),
      merchantId,
      requestedAt: new Date().toISOString(),
    });
    add(
      'unknown-command',
      QUEUES.parkedCommands,
      'invalid dispatcher command: /type must be equal to one of the allowed values',
      publishTo(EXCHANGES.commands, 'delivery.explode'),
      JSON.stringify({
        type: 'delivery.explode',
        deliveryId: randomUUID(),
        webhookId: randomUUID(),
        merchantId,
        requestedAt: new Date().toISOString(),
      }),
    );
    add(
      'unknown-type',
      QUEUES.parkedEvents,
      'invalid platform event: /type must be equal to one of the allowed values',
      publishTo(EXCHANGES.events, 'transaction.exploded'),
      JSON.stringify({ ...event, type: 'transaction.exploded' }),
    );
    // Bad headers on a valid body.
    const deliver = (attempt: unknown, guard?: unknown) =>
      publishTo(EXCHANGES.deliveries, ROUTING_KEYS.deliver, attempt, guard);
    const body = JSON.stringify(validDelivery);
    add('attempt-text', QUEUES.parkedDeliveries, 'bad header x-attempt: must be integer', deliver('two'), body);
    add('attempt-zero', QUEUES.parkedDeliveries, 'bad header x-attempt: must be >= 1', deliver(0), body);
    add(
      'guard-text',
      QUEUES.parkedDeliveries,
      'bad header x-guard: must be equal to constant',
      deliver(1, 'yes'),
      body,
    );
    // Garbage that reaches the delivery queue from a retry queue (dead-lettered: it carries x-death).
    add(
      'via-retry-queue',
      QUEUES.parkedDeliveries,
      'delivery message is not JSON',
      publishTo('', retryQueueName(50), 2),
      `<${CUSTOMER_DATA}>`,
    );

    await Promise.all(garbage.map((g) => g.publish(amqp)));
    const ids = new Set(garbage.map((g) => g.id));
    const parked = new Map<string, { queue: string; body: string; reason: unknown }>();
    await waitFor(
      async () => {
        for (const [id, message] of await takeParked(ids)) parked.set(id, message);
        return parked.size === garbage.length;
      },
      { timeoutMs: 15_000, what: `${garbage.length} parked messages` },
    );
    for (const g of garbage) {
      const message = parked.get(g.id)!;
      expect({ id: g.id, queue: message.queue }).toEqual({ id: g.id, queue: g.parkedIn });
      expect({ id: g.id, reason: message.reason }).toEqual({ id: g.id, reason: expect.stringContaining(g.reason) });
      expect(message.body).toBe(g.body); // parked as received
    }

    // Logged once each, at warn level, by message id; no log line ever quotes a body.
    const lines = [...warn.mock.calls, ...error.mock.calls].map(([line]) => String(line));
    for (const g of garbage) expect(lines.filter((line) => line.includes(`parked message ${g.id} `))).toHaveLength(1);
    expect(lines.filter((line) => line.includes(CUSTOMER_DATA))).toEqual([]);
    // No handler failed (a failure would requeue the message and show here).
    expect(error.mock.calls.map(([line]) => String(line)).filter((line) => line.includes('handler failed'))).toEqual(
      [],
    );

    // Work goes on. The merchant's (empty) webhook list is cached by this event; the new webhook's change must
    // reach the config consumer for the next event to be delivered.
    await publishEvents(amqp, [transactionEvent(merchantId, integrationId)]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const hook = await createWebhook({ merchantId, url: `${receiver.url}/after-garbage` });
    await publishEvents(amqp, [transactionEvent(merchantId, integrationId)]);
    await waitFor(async () => (await logsOf(hook.id)).length === 1, { what: 'the delivery after the garbage' });
    // …and the slow lane too: a resend published straight to a shard.
    const [log] = await logsOf(hook.id);
    const resend = Buffer.from(JSON.stringify({ v: 1, deliveryId: log.delivery_id, manual: true }));
    await publishTo('', SLOW_LANE_QUEUES[3], 2)(amqp, resend, log.delivery_id);
    await waitFor(async () => (await logsOf(hook.id)).length === 2, { what: 'a resend through the slow lane' });
    expect(receiver.to('/after-garbage')).toHaveLength(2);
    await publishDelivery(amqp, { deliveryId: log.delivery_id, manual: true }, 3);
    await waitFor(async () => (await logsOf(hook.id)).length === 3, { what: 'a resend through the delivery queue' });

    // Nothing was parked twice or left behind in the queues it came from.
    expect((await takeParked(ids)).size).toBe(0);
    for (const queue of [QUEUES.dispatcherEvents, QUEUES.deliveries, ...SLOW_LANE_QUEUES, QUEUES.dispatcherCommands]) {
      expect({ queue, depth: await amqp.queueDepth(queue) }).toEqual({ queue, depth: 0 });
    }
  }, 60_000);
});
