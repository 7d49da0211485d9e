import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { rabbitmqctl, testEnv, waitFor } from '#testing';
import amqplib from 'amqplib';
import { AmqpClient } from './amqp.client.js';
import { amqpNodeLabel } from './amqp-urls.js';
import { declareTopology, EXCHANGES, QUEUES, retryQueueName, ROUTING_KEYS } from './topology.js';

const topology = { retryDelaysMs: [200, 60_000] };

/** Drains a queue through a plain amqplib channel so assertions do not depend on the client under test. */
async function drain(queue: string): Promise<string[]> {
  const connection = await amqplib.connect(testEnv().amqpUrl);
  try {
    const channel = await connection.createChannel();
    const bodies: string[] = [];
    for (;;) {
      const message = await channel.get(queue, { noAck: true });
      if (!message) return bodies;
      bodies.push(message.content.toString());
    }
  } finally {
    await connection.close();
  }
}

/** Takes one message off a queue (undefined when it is empty), through a plain amqplib channel. */
async function getOne(queue: string): Promise<amqplib.GetMessage | undefined> {
  const connection = await amqplib.connect(testEnv().amqpUrl);
  try {
    const channel = await connection.createChannel();
    return (await channel.get(queue, { noAck: true })) || undefined;
  } finally {
    await connection.close();
  }
}

describe('AmqpClient against a real RabbitMQ', () => {
  const clients: AmqpClient[] = [];
  const client = () => {
    const c = new AmqpClient({ url: testEnv().amqpUrl, name: 'test', topology });
    clients.push(c);
    return c;
  };
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    await drain(QUEUES.dispatcherEvents);
    await drain(QUEUES.deliveries);
  });

  it('declares the topology and routes an event from the events exchange to the dispatcher queue', async () => {
    const amqp = client();
    await amqp.waitForConnect();
    await amqp.publish(EXCHANGES.events, 'transaction.created', Buffer.from('{"n":1}'));
    expect(await drain(QUEUES.dispatcherEvents)).toEqual(['{"n":1}']);
  });

  it('a consumer whose set-up fails (its exchange is missing) is set up again, not left dead, once it can be', async () => {
    const amqp = client();
    await amqp.waitForConnect();
    const exchange = `test.late.${Date.now()}`;
    const received: string[] = [];
    // Binding to an exchange that does not exist yet: RabbitMQ closes the channel during set-up.
    const consuming = amqp.consume(
      '',
      async (message) => {
        received.push(message.content.toString());
        return 'ack';
      },
      { prefetch: 10, exclusiveBindTo: { exchange } },
    );
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const connection = await amqplib.connect(testEnv().amqpUrl);
    try {
      const channel = await connection.createChannel();
      await channel.assertExchange(exchange, 'fanout', { durable: false, autoDelete: true });
      await consuming;
      channel.publish(exchange, '', Buffer.from('{"late":true}'));
      await waitFor(() => received.length === 1, { timeoutMs: 5_000, what: 'the late consumer to receive' });
      expect(received).toEqual(['{"late":true}']);
    } finally {
      await connection.close();
    }
  }, 20_000);

  it('consumes with manual acks: a requeued message comes back, an acked one does not', async () => {
    const amqp = client();
    await amqp.waitForConnect();
    const seen: string[] = [];
    await amqp.consume(
      QUEUES.deliveries,
      async (message) => {
        seen.push(message.content.toString());
        return seen.length === 1 ? 'requeue' : 'ack';
      },
      { prefetch: 10 },
    );
    await amqp.publish(EXCHANGES.deliveries, 'deliver', Buffer.from('once-requeued'));
    await waitFor(() => seen.length >= 2, { what: 'a redelivery' });
    expect(seen).toEqual(['once-requeued', 'once-requeued']);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(seen).toHaveLength(2);
  });

  it('a message whose handler throws comes back after a growing pause, not at once: a passing failure does not park it', async () => {
    const amqp = client();
    await amqp.waitForConnect();
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const seenAt: number[] = [];
    await amqp.consume(
      QUEUES.dispatcherEvents,
      async () => {
        seenAt.push(Date.now());
        // Fails as a fan-out does while a queue's leader moves (the broker nacks its publish), three times.
        if (seenAt.length <= 3) throw new Error('message nacked');
        return 'ack';
      },
      { prefetch: 10 },
    );
    await amqp.publish(EXCHANGES.events, 'transaction.created', Buffer.from('{"n":1}'));
    await waitFor(() => seenAt.length >= 4, { timeoutMs: 10_000, what: 'the fourth delivery' });
    const gaps = seenAt.slice(1).map((at, i) => at - seenAt[i]);
    // 250, 500 and 1,000 ms (a little less than each is the timer's and the broker's slack).
    expect(gaps[0]).toBeGreaterThanOrEqual(230);
    expect(gaps[1]).toBeGreaterThanOrEqual(480);
    expect(gaps[2]).toBeGreaterThanOrEqual(980);
    expect(await drain(QUEUES.parkedEvents)).toEqual([]);
    logged.mockRestore();
  });

  it('stopping gives a held message back at once', async () => {
    const amqp = client();
    await amqp.waitForConnect();
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    let failed = false;
    await amqp.consume(
      QUEUES.dispatcherEvents,
      async () => {
        failed = true;
        throw new Error('database unavailable');
      },
      { prefetch: 10 },
    );
    await amqp.publish(EXCHANGES.events, 'transaction.created', Buffer.from('{"n":2}'));
    await waitFor(() => failed, { what: 'the failing delivery' });
    const started = Date.now();
    await amqp.stopConsuming(10_000);
    expect(Date.now() - started).toBeLessThan(200);
    await waitFor(async () => (await getOne(QUEUES.dispatcherEvents))?.content.toString() === '{"n":2}', {
      what: 'the message back in its queue',
    });
    logged.mockRestore();
  });

  it('settles every message handled out of order exactly once: nothing is redelivered after the consumer closes', async () => {
    const amqp = client();
    await amqp.waitForConnect();
    const handled: string[] = [];
    await amqp.consume(
      QUEUES.deliveries,
      async (message) => {
        const n = Number(message.content.toString());
        await new Promise((resolve) => setTimeout(resolve, (n * 7) % 23)); // finish in a scrambled order
        handled.push(String(n));
        return n % 10 === 3 ? 'reject' : 'ack';
      },
      { prefetch: 50 },
    );
    await Promise.all(
      Array.from({ length: 200 }, (_, n) => amqp.publish(EXCHANGES.deliveries, 'deliver', Buffer.from(String(n)))),
    );
    await waitFor(() => handled.length === 200, { what: '200 handled messages' });
    await amqp.close();
    // Acked and rejected messages are settled: the queue is empty and nothing came twice.
    expect(await drain(QUEUES.deliveries)).toEqual([]);
    expect(new Set(handled).size).toBe(200);
    // The 20 rejected ones went to the parked queue (dead-lettered), not back to the queue.
    expect((await drain(QUEUES.parkedDeliveries)).sort()).toEqual(
      Array.from({ length: 20 }, (_, i) => String(i * 10 + 3)).sort(),
    );
  });

  it('parks a message with its reason: as received, with x-parked-reason, logged once by id, never by body', async () => {
    const amqp = client();
    await amqp.waitForConnect();
    const warn = jest.spyOn(Logger.prototype, 'warn');
    try {
      await amqp.consume(
        QUEUES.deliveries,
        async (message) => {
          await amqp.park(message, ROUTING_KEYS.parkedDeliveries, 'invalid delivery message: /manual must be boolean');
          return 'ack';
        },
        { prefetch: 5 },
      );
      const body = Buffer.from('{"deliveryId":"1","manual":"jane@example.com"}');
      await amqp.publish(EXCHANGES.deliveries, 'deliver', body, {
        messageId: 'm-1',
        type: 'delivery',
        headers: { 'x-attempt': 2 },
      });
      const parked = await waitFor(() => getOne(QUEUES.parkedDeliveries), { what: 'the parked message' });
      expect(parked.content).toEqual(body);
      expect(parked.properties).toMatchObject({
        messageId: 'm-1',
        type: 'delivery',
        contentType: 'application/json',
        headers: { 'x-attempt': 2, 'x-parked-reason': 'invalid delivery message: /manual must be boolean' },
      });
      // Acked once parked: nothing waits in or comes back to the queue it was consumed from.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(await drain(QUEUES.deliveries)).toEqual([]);
      const logged = warn.mock.calls.map(([message]) => String(message)).filter((m) => m.includes('parked'));
      expect(logged).toEqual([
        'parked message m-1 to deliveries.parked: invalid delivery message: /manual must be boolean',
      ]);
    } finally {
      warn.mockRestore();
    }
  });

  it('a message whose handler takes long does not hold back the acks (and prefetch slots) of the others', async () => {
    const amqp = client();
    await amqp.waitForConnect();
    let release!: () => void;
    const slow = new Promise<void>((resolve) => (release = resolve));
    let done = 0;
    await amqp.consume(
      QUEUES.deliveries,
      async (message) => {
        if (message.content.toString() === 'slow') await slow;
        done += 1;
        return 'ack';
      },
      { prefetch: 5 },
    );
    await amqp.publish(EXCHANGES.deliveries, 'deliver', Buffer.from('slow'));
    await Promise.all(
      Array.from({ length: 50 }, (_, n) => amqp.publish(EXCHANGES.deliveries, 'deliver', Buffer.from(`fast-${n}`))),
    );
    // With a prefetch of 5, 50 more messages flow only if their acks go out while the first is still unsettled.
    await waitFor(() => done === 50, { what: '50 messages behind a slow one' });
    // ... and none of those acks covered the unfinished one: stopped now, it is redelivered, not lost.
    await amqp.close(100);
    release();
    expect(await drain(QUEUES.deliveries)).toEqual(['slow']);
  });

  it('consumer priority: the higher consumer takes every message while it has prefetch left, the lower one the rest', async () => {
    // Two clients, as two dispatcher processes, on the (quorum) delivery queue.
    const received: Record<'high' | 'low', string[]> = { high: [], low: [] };
    let hold = false;
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const consumer = (name: 'high' | 'low', priority: number) => {
      const amqp = client();
      return amqp.consume(
        QUEUES.deliveries,
        async (message) => {
          received[name].push(message.content.toString());
          if (hold) await held;
          return 'ack';
        },
        { prefetch: 3, priority },
      );
    };
    await consumer('low', 1);
    await consumer('high', 500);
    const publisher = client();

    // Light load: one message at a time, each handled before the next; round-robin would split them.
    for (let i = 0; i < 6; i += 1) {
      await publisher.publish(EXCHANGES.deliveries, 'deliver', Buffer.from(`light-${i}`));
      await waitFor(() => received.high.length + received.low.length === i + 1, { what: `message ${i}` });
    }
    expect(received).toEqual({ high: ['light-0', 'light-1', 'light-2', 'light-3', 'light-4', 'light-5'], low: [] });

    // Heavy load: the higher consumer's prefetch is full, so the lower one gets the overflow.
    hold = true;
    try {
      for (let i = 0; i < 5; i += 1)
        await publisher.publish(EXCHANGES.deliveries, 'deliver', Buffer.from(`heavy-${i}`));
      await waitFor(() => received.high.length + received.low.length === 11, { what: 'the heavy messages' });
    } finally {
      release();
    }
    expect(received.high.filter((body) => body.startsWith('heavy-'))).toHaveLength(3);
    expect(received.low.filter((body) => body.startsWith('heavy-'))).toHaveLength(2);
  });

  it('a message in a retry queue dead-letters back to the delivery queue after its TTL', async () => {
    const amqp = client();
    await amqp.waitForConnect();
    const started = Date.now();
    await amqp.publish('', retryQueueName(200), Buffer.from('later'));
    expect(await drain(QUEUES.deliveries)).toEqual([]);
    const arrived = await waitFor(
      async () => {
        const bodies = await drain(QUEUES.deliveries);
        return bodies.length ? bodies : undefined;
      },
      { what: 'the delayed message' },
    );
    expect(arrived).toEqual(['later']);
    expect(Date.now() - started).toBeGreaterThanOrEqual(200);
  });

  it('keeps consuming and publishing after the broker restarts (rabbitmqctl stop_app / start_app)', async () => {
    const amqp = client();
    await amqp.waitForConnect();
    const seen = new Set<string>();
    await amqp.consume(
      QUEUES.deliveries,
      async (message) => {
        seen.add(message.content.toString());
        return 'ack';
      },
      { prefetch: 5 },
    );
    await amqp.publish(EXCHANGES.deliveries, 'deliver', Buffer.from('before'));
    await waitFor(() => seen.has('before'), { what: 'the first message' });

    await rabbitmqctl('stop_app');
    await waitFor(() => !amqp.isConnected(), { what: 'the client to notice the outage' });
    // Published while the broker is down: held by the client and confirmed after it reconnects.
    const duringOutage = amqp.publish(EXCHANGES.deliveries, 'deliver', Buffer.from('during'), {});
    await rabbitmqctl('start_app');
    await duringOutage;
    await amqp.publish(EXCHANGES.deliveries, 'deliver', Buffer.from('after'));
    await waitFor(() => seen.has('during') && seen.has('after'), { timeoutMs: 30_000, what: 'messages after restart' });
    expect([...seen].sort()).toEqual(['after', 'before', 'during']);
  }, 90_000);
});

/** The arguments RabbitMQ holds for each queue of a vhost, by queue name. */
async function queueArguments(vhost: string): Promise<Record<string, Record<string, unknown>>> {
  const rows = JSON.parse(
    await rabbitmqctl('list_queues', '-q', '-p', vhost, '--formatter', 'json', 'name', 'arguments'),
  ) as { name: string; arguments: [name: string, type: string, value: unknown][] }[];
  // Each argument comes as [name, AMQP type, value].
  return Object.fromEntries(
    rows.map((row) => [row.name, Object.fromEntries(row.arguments.map(([name, , value]) => [name, value]))]),
  );
}

describe('AmqpClient with several nodes listed (AMQP_URL of a cluster)', () => {
  const vhostOf = (url: string) => decodeURIComponent(new URL(url).pathname.slice(1));

  it('connects through whichever listed node answers, and reports the node it uses and how each other one looks', async () => {
    const closed = 'amqp://guest:guest@127.0.0.1:1'; // nothing listens on port 1
    // The client starts at a random node of the list: here the first, the one that does not answer.
    const random = jest.spyOn(Math, 'random').mockReturnValue(0);
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const amqp = new AmqpClient({ url: [closed, testEnv().amqpUrl], name: 'test-nodes', topology });
    random.mockRestore();
    try {
      await amqp.waitForConnect();
      const live = amqpNodeLabel(testEnv().amqpUrl);
      expect(amqp.connectedNode()).toBe(live);
      expect(warn.mock.calls.map(([message]) => String(message))).toContainEqual(
        expect.stringMatching(/^cannot reach RabbitMQ at 127\.0\.0\.1:1: .*; trying the next node$/),
      );
      expect(await amqp.nodeStates(1_000)).toEqual({ '127.0.0.1:1': 'down', [live]: 'connected' });
      await amqp.publish(EXCHANGES.events, 'transaction.created', Buffer.from('{"via":"the live node"}'));
      expect(await drain(QUEUES.dispatcherEvents)).toEqual(['{"via":"the live node"}']);
    } finally {
      await amqp.close();
      warn.mockRestore();
    }
    expect(amqp.connectedNode()).toBeUndefined();
  });

  it('declares every durable queue with three replicas (x-quorum-initial-group-size)', async () => {
    const amqp = new AmqpClient({ url: testEnv().amqpUrl, name: 'test-group-size', topology });
    try {
      await amqp.waitForConnect();
      const declared = await queueArguments(vhostOf(testEnv().amqpUrl));
      for (const queue of [QUEUES.dispatcherEvents, QUEUES.deliveries, QUEUES.parkedDeliveries, retryQueueName(200)]) {
        expect({ queue, ...declared[queue] }).toMatchObject({
          queue,
          'x-queue-type': 'quorum',
          'x-quorum-initial-group-size': 3,
        });
      }
    } finally {
      await amqp.close();
    }
  });

  it('keeps the queues of an earlier release (created without the group size) as they are, and works with them', async () => {
    const vhost = `${vhostOf(testEnv().amqpUrl)}-before-group-size`;
    const url = new URL(testEnv().amqpUrl);
    url.pathname = `/${encodeURIComponent(vhost)}`;
    await rabbitmqctl('add_vhost', vhost);
    try {
      await rabbitmqctl('set_permissions', '-p', vhost, decodeURIComponent(url.username), '.*', '.*', '.*');
      // The earlier release's declaration: quorum queues without x-quorum-initial-group-size.
      const connection = await amqplib.connect(url.toString());
      await declareTopology(await connection.createConfirmChannel(), topology, { groupSize: false });
      await connection.close();

      const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
      const amqp = new AmqpClient({ url: url.toString(), name: 'test-upgrade', topology });
      try {
        await amqp.waitForConnect();
        await amqp.publish(EXCHANGES.events, 'transaction.created', Buffer.from('{"after":"upgrade"}'));
        expect(await amqp.queueDepth(QUEUES.dispatcherEvents)).toBe(1);
        expect(warn.mock.calls.map(([message]) => String(message))).toContainEqual(
          expect.stringContaining('created without x-quorum-initial-group-size'),
        );
      } finally {
        await amqp.close();
        warn.mockRestore();
      }
      expect((await queueArguments(vhost))[QUEUES.dispatcherEvents]).not.toHaveProperty('x-quorum-initial-group-size');
    } finally {
      await rabbitmqctl('delete_vhost', vhost);
    }
  }, 30_000);
});
