import { describe, expect, it } from '@jest/globals';
import { createServer } from 'node:net';
import { amqpNodeLabel, nodeAnswers, rotateRandomly, splitAmqpUrls } from './amqp-urls.js';

describe('AMQP_URL with the nodes of a cluster', () => {
  it('splits a comma-separated list, trimming, and keeps a single URL as it is', () => {
    expect(splitAmqpUrls('amqp://a@mq-1:5672/p , amqp://a@mq-2/p,')).toEqual([
      'amqp://a@mq-1:5672/p',
      'amqp://a@mq-2/p',
    ]);
    expect(splitAmqpUrls('amqp://guest:guest@127.0.0.1:5672')).toEqual(['amqp://guest:guest@127.0.0.1:5672']);
  });

  it('names a node by host and port, never by its login, with the scheme’s port when none is given', () => {
    expect(amqpNodeLabel('amqp://pay:s3cret@mq-1:5673/payments')).toBe('mq-1:5673');
    expect(amqpNodeLabel('amqp://pay:s3cret@mq-1/payments')).toBe('mq-1:5672');
    expect(amqpNodeLabel('amqps://pay:s3cret@[::1]/payments')).toBe('[::1]:5671');
  });

  it('starts each process at another node, keeping the failover order after it', () => {
    const nodes = ['a', 'b', 'c'];
    expect([0, 0.34, 0.67, 0.99].map((r) => rotateRandomly(nodes, () => r))).toEqual([
      ['a', 'b', 'c'],
      ['b', 'c', 'a'],
      ['c', 'a', 'b'],
      ['c', 'a', 'b'],
    ]);
  });

  it('probes a node: up when its port accepts a connection, down when nothing listens', async () => {
    const server = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    try {
      expect(await nodeAnswers(`amqp://guest:guest@127.0.0.1:${port}`, 1_000)).toBe(true);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    expect(await nodeAnswers(`amqp://guest:guest@127.0.0.1:${port}`, 1_000)).toBe(false);
  });
});
