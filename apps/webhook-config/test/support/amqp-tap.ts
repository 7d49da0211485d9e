import amqplib from 'amqplib';
import { testEnv } from '#testing';
import type { Json } from './harness.js';

/**
 * An exclusive queue of the test's own, bound to an exchange, collecting every message published there (a
 * copy: the platform's queues still get theirs). Messages from tests running in parallel arrive too, so
 * callers filter by their own ids.
 */
export class AmqpTap {
  readonly messages: Array<{ body: Json; headers: Record<string, unknown> }> = [];

  private constructor(private readonly connection: amqplib.ChannelModel) {}

  static async bind(exchange: string, routingKey = ''): Promise<AmqpTap> {
    const connection = await amqplib.connect(testEnv().amqpUrl);
    const tap = new AmqpTap(connection);
    const channel = await connection.createChannel();
    await channel.checkExchange(exchange);
    const { queue } = await channel.assertQueue('', { exclusive: true, autoDelete: true, durable: false });
    await channel.bindQueue(queue, exchange, routingKey);
    await channel.consume(
      queue,
      (message) => {
        if (message)
          tap.messages.push({
            body: JSON.parse(message.content.toString('utf8')),
            headers: message.properties.headers ?? {},
          });
      },
      { noAck: true },
    );
    return tap;
  }

  async close(): Promise<void> {
    await this.connection.close();
  }
}
