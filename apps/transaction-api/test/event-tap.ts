import { randomBytes } from 'node:crypto';
import type { PlatformEvent } from '#messaging';
import { EXCHANGES, QUEUES } from '#messaging';
import { testEnv, waitFor } from '#testing';
import amqplib from 'amqplib';

export interface TappedEvent {
  messageId: string | undefined;
  routingKey: string;
  body: string;
  event: PlatformEvent;
}

/**
 * A durable queue of the test's own bound to `payments.events` (`#`), read with basic.get on a fresh connection each
 * time, so it survives a broker restart and never races a consumer of dispatcher.events.
 */
export class EventTap {
  readonly events: TappedEvent[] = [];
  private constructor(readonly queue: string) {}

  static async open(): Promise<EventTap> {
    const tap = new EventTap(`test.transaction-api.${randomBytes(4).toString('hex')}`);
    await tap.withChannel(async (channel) => {
      await channel.assertExchange(EXCHANGES.events, 'topic', { durable: true });
      await channel.assertQueue(tap.queue, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
      await channel.bindQueue(tap.queue, EXCHANGES.events, '#');
    });
    return tap;
  }

  private async withChannel<T>(work: (channel: amqplib.Channel) => Promise<T>): Promise<T> {
    const connection = await amqplib.connect(testEnv().amqpUrl);
    try {
      return await work(await connection.createChannel());
    } finally {
      await connection.close().catch(() => undefined);
    }
  }

  /** Moves everything queued so far into {@link events}. */
  async drain(): Promise<TappedEvent[]> {
    return this.withChannel(async (channel) => {
      for (;;) {
        const message = await channel.get(this.queue, { noAck: true });
        if (!message) return this.events;
        const body = message.content.toString('utf8');
        this.events.push({
          messageId: message.properties.messageId as string | undefined,
          routingKey: message.fields.routingKey,
          body,
          event: JSON.parse(body) as PlatformEvent,
        });
      }
    });
  }

  /** Waits until `count` events match `filter`; returns them in arrival order. */
  async waitFor(filter: (event: PlatformEvent) => boolean, count: number, timeoutMs = 10_000): Promise<TappedEvent[]> {
    return waitFor<TappedEvent[] | undefined>(
      async () => {
        const matching = (await this.drain()).filter((tapped) => filter(tapped.event));
        return matching.length >= count ? matching : undefined;
      },
      { timeoutMs, intervalMs: 100, what: `${count} events` },
    ) as Promise<TappedEvent[]>;
  }

  async close(): Promise<void> {
    await this.withChannel((channel) => channel.deleteQueue(this.queue)).catch(() => undefined);
  }
}

/** Also empties dispatcher.events of this run's vhost (no dispatcher consumes it in these tests). */
export async function purgeDispatcherQueue(): Promise<void> {
  const connection = await amqplib.connect(testEnv().amqpUrl);
  try {
    const channel = await connection.createChannel();
    await channel.purgeQueue(QUEUES.dispatcherEvents).catch(() => undefined);
  } finally {
    await connection.close();
  }
}
