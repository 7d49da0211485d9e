import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { testEnv, waitFor } from '#testing';
import amqplib, { type ChannelModel, type ConfirmChannel, type GetMessage } from 'amqplib';
import { redrive, runRedriveCli } from './redrive.cli.js';
import { declareTopology, EXCHANGES, QUEUES, ROUTING_KEYS } from './topology.js';

describe('redrive against a real RabbitMQ (this run’s vhost)', () => {
  let connection: ChannelModel;
  let channel: ConfirmChannel;

  beforeAll(async () => {
    connection = await amqplib.connect(testEnv().amqpUrl);
    channel = await connection.createConfirmChannel();
    await declareTopology(channel, { retryDelaysMs: [] });
  });
  afterAll(() => connection.close());
  afterEach(async () => {
    for (const queue of [QUEUES.parkedDeliveries, QUEUES.deliveries, QUEUES.parkedEvents, QUEUES.dispatcherEvents]) {
      await channel.purgeQueue(queue);
    }
  });

  const depth = async (queue: string) => (await channel.checkQueue(queue)).messageCount;
  /** A message's headers but the one the queue adds on every delivery. */
  const headersOf = (message: GetMessage) => {
    const { 'x-delivery-count': _count, ...headers } = message.properties.headers ?? {};
    return headers;
  };
  const takeAll = async (queue: string) => {
    const messages: GetMessage[] = [];
    for (let m = await channel.get(queue, { noAck: true }); m; m = await channel.get(queue, { noAck: true })) {
      messages.push(m);
    }
    return messages;
  };

  /** Parks three delivery messages as the dispatcher does: to the dead-letter exchange with x-parked-reason. */
  async function parkThreeDeliveries(): Promise<void> {
    const parked = [
      { id: 'd-1', attempt: 11, reason: 'repeats used up' },
      { id: 'd-2', attempt: 4, reason: 'repeats used up' },
      { id: 'd-3', attempt: 1, reason: 'invalid delivery message: /manual must be boolean' },
    ];
    for (const { id, attempt, reason } of parked) {
      channel.publish(EXCHANGES.deadLetter, ROUTING_KEYS.parkedDeliveries, Buffer.from(`{"deliveryId":"${id}"}`), {
        persistent: true,
        messageId: id,
        contentType: 'application/json',
        headers: { 'x-attempt': attempt, 'x-guard': 1, 'x-parked-reason': reason, traceparent: `trace-${id}` },
      });
    }
    await channel.waitForConfirms();
  }

  it('a dry run reports the parked messages and their reasons, and moves none', async () => {
    await parkThreeDeliveries();
    const lines: string[] = [];
    const code = await runRedriveCli(['--queue', 'deliveries', '--dry-run'], { AMQP_URL: testEnv().amqpUrl }, (l) =>
      lines.push(l),
    );
    expect(code).toBe(0);
    expect(lines).toEqual([
      'redrive: dispatcher.deliveries.parked: 3 parked; would move 3 to webhooks.deliveries/deliver',
      '  2  repeats used up',
      '  1  invalid delivery message: /manual must be boolean',
    ]);
    // A quorum queue takes back what a closed channel held through its log: the count catches up shortly after.
    const depths = async () => [await depth(QUEUES.parkedDeliveries), await depth(QUEUES.deliveries)];
    for (let tries = 0; tries < 50 && (await depths())[0] < 3; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(await depths()).toEqual([3, 0]);
  });

  it('moves every parked delivery back to the delivery queue, bodies intact, as its next attempt', async () => {
    await parkThreeDeliveries();
    const [report] = await redrive(testEnv().amqpUrl, { queues: [QUEUES.parkedDeliveries], dryRun: false });
    expect(report).toEqual({
      queue: QUEUES.parkedDeliveries,
      parked: 3,
      moved: 3,
      reasons: { 'repeats used up': 2, 'invalid delivery message: /manual must be boolean': 1 },
    });
    expect(await depth(QUEUES.parkedDeliveries)).toBe(0);
    const moved = await takeAll(QUEUES.deliveries);
    expect(moved.map((m) => [m.content.toString(), m.properties.messageId, headersOf(m)])).toEqual([
      ['{"deliveryId":"d-1"}', 'd-1', { 'x-attempt': 12, traceparent: 'trace-d-1' }],
      ['{"deliveryId":"d-2"}', 'd-2', { 'x-attempt': 5, traceparent: 'trace-d-2' }],
      ['{"deliveryId":"d-3"}', 'd-3', { 'x-attempt': 2, traceparent: 'trace-d-3' }],
    ]);
    expect(moved.every((m) => m.properties.deliveryMode === 2)).toBe(true);
  });

  it('--limit 1 moves only the oldest', async () => {
    await parkThreeDeliveries();
    expect(
      await runRedriveCli(
        ['--queue=dispatcher.deliveries.parked', '--limit', '1'],
        { AMQP_URL: testEnv().amqpUrl },
        () => undefined,
      ),
    ).toBe(0);
    expect((await takeAll(QUEUES.deliveries)).map((m) => m.properties.messageId)).toEqual(['d-1']);
    expect(await depth(QUEUES.parkedDeliveries)).toBe(2);
  });

  it('takes only what was parked at the start: a message parked again at once is not redriven twice', async () => {
    await parkThreeDeliveries();
    // A consumer that parks everything again, like a dispatcher meeting a poison message.
    const consumer = await connection.createConfirmChannel();
    let seen = 0;
    await consumer.consume(QUEUES.deliveries, (message) => {
      if (!message) return;
      seen += 1;
      consumer.publish(EXCHANGES.deadLetter, ROUTING_KEYS.parkedDeliveries, message.content, {
        persistent: true,
        messageId: message.properties.messageId,
        headers: { ...message.properties.headers, 'x-parked-reason': 'parked again' },
      });
      void consumer.waitForConfirms().then(() => consumer.ack(message));
    });
    try {
      const [report] = await redrive(testEnv().amqpUrl, { queues: [QUEUES.parkedDeliveries], dryRun: false });
      expect(report.moved).toBe(3);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(seen).toBe(3);
    } finally {
      await consumer.close();
    }
    expect(await depth(QUEUES.parkedDeliveries)).toBe(3);
  });

  it('a message the broker dead-lettered goes back to its queue, reported with the broker’s reason', async () => {
    channel.publish('', QUEUES.dispatcherEvents, Buffer.from('{"type":"unreadable"}'), { messageId: 'e-1' });
    await channel.waitForConfirms();
    const event = await channel.get(QUEUES.dispatcherEvents, { noAck: false });
    if (!event) throw new Error('the event did not arrive');
    channel.nack(event, false, false); // rejected: the queue dead-letters it to dispatcher.events.parked
    await waitFor(async () => (await depth(QUEUES.parkedEvents)) === 1, { what: 'the dead-lettered event' });
    const [report] = await redrive(testEnv().amqpUrl, { queues: [QUEUES.parkedEvents], dryRun: false });
    expect(report.reasons).toEqual({ 'dead-lettered (rejected) from dispatcher.events': 1 });
    const [back] = await takeAll(QUEUES.dispatcherEvents);
    expect(back.content.toString()).toBe('{"type":"unreadable"}');
    expect(headersOf(back)).toEqual({}); // neither x-death nor x-first-death-*: it is a fresh message again
  });

  it('refuses an unknown queue or option before connecting', async () => {
    const errors: string[] = [];
    const env = { AMQP_URL: 'amqp://nobody@127.0.0.1:1' };
    expect(
      await runRedriveCli(
        ['--queue', 'config'],
        env,
        () => undefined,
        (l) => errors.push(l),
      ),
    ).toBe(2);
    expect(
      await runRedriveCli(
        ['--limit', '0'],
        env,
        () => undefined,
        (l) => errors.push(l),
      ),
    ).toBe(2);
    expect(
      await runRedriveCli(
        ['--all'],
        env,
        () => undefined,
        (l) => errors.push(l),
      ),
    ).toBe(2);
    expect(errors.map((e) => e.split(';')[0])).toEqual([
      'redrive: unknown queue "config"',
      'redrive: --limit must be a whole number ≥ 1',
      'redrive: unknown argument "--all"',
    ]);
  });
});
