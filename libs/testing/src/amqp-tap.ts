import amqplib from 'amqplib';
import { testEnv } from './test-env.js';

/**
 * An exclusive queue of the test's own, bound to an exchange, collecting every message published there (a
 * copy: the platform's queues still get theirs). Messages from tests running in parallel arrive too, so
 * callers filter by their own ids. `T`: the messages' JSON body.
 */
export class AmqpTap<T = unknown> {
  readonly messages: Array<{ body: T; headers: Record<string, unknown> }> = [];

  private constructor(private readonly connection: amqplib.ChannelModel) {}

  /** `amqpUrl`: the broker and vhost to tap, the run's by default (a spec's own, see provisionOwnInfrastructure). */
  static async bind<T = unknown>(
    exchange: string,
    routingKey = '',
    amqpUrl: string = testEnv().amqpUrl,
  ): Promise<AmqpTap<T>> {
    const connection = await amqplib.connect(amqpUrl);
    const tap = new AmqpTap<T>(connection);
    const channel = await connection.createChannel();
    await channel.checkExchange(exchange);
    const { queue } = await channel.assertQueue('', { exclusive: true, autoDelete: true, durable: false });
    await channel.bindQueue(queue, exchange, routingKey);
    await channel.consume(
      queue,
      (message) => {
        if (message)
          tap.messages.push({
            body: JSON.parse(message.content.toString('utf8')) as T,
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
