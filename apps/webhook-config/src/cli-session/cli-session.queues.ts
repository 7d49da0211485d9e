import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import type { Channel, ConsumeMessage } from 'amqplib';
import type { ChannelWrapper } from 'amqp-connection-manager';
import { AmqpClient, declareCliSessionQueue } from '#messaging';

/** Events a connection has at once without a result yet (the command line forwards them concurrently). */
export const CLI_PREFETCH = 20;

export interface CliQueueSession {
  id: string;
  merchantId: string;
  integrationId: string;
  events: readonly string[];
}

/** One connection's consumer of its session's queue: settle what it got, stop it. */
export interface CliConsumer {
  ack(message: ConsumeMessage): void;
  /** Cancels the consumer and gives back every message it has not acked (they wait for the next connection). */
  stop(): Promise<void>;
}

/**
 * The `payments listen` sessions' RabbitMQ side in this process: every session's queue (`cli.session.<id>`, bound to
 * the kinds it listens to) and one consumer per connected command line, all on one channel. A consumer outlives a
 * broker reconnect: it is set up again on the new channel, and what the old one had unacked comes again.
 */
@Injectable()
export class CliSessionQueues implements OnApplicationShutdown {
  private channel?: ChannelWrapper;

  constructor(private readonly amqp: AmqpClient) {}

  private wrapper(): ChannelWrapper {
    this.channel ??= this.amqp.dynamicChannel('cli-sessions', CLI_PREFETCH);
    return this.channel;
  }

  /** Declares the session's queue and bindings once; resolves once the broker has them, rejects after `timeoutMs`. */
  async declare(session: CliQueueSession, timeoutMs: number): Promise<void> {
    const wrapper = this.wrapper();
    let declared = false;
    const once = async (channel: Channel) => {
      await declareCliSessionQueue(channel, session);
      declared = true;
    };
    // A setup added while the channel is down runs only at the next connect: wait for the channel, and again if it
    // dropped in between.
    const declaring = (async () => {
      while (!declared) {
        await wrapper.waitForConnect();
        await wrapper.addSetup(once);
        await wrapper.removeSetup(once);
      }
    })();
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        declaring,
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error('RabbitMQ did not declare the queue in time')), timeoutMs);
        }),
      ]);
    } finally {
      clearTimeout(timer);
      if (!declared) void declaring.catch(() => undefined);
    }
  }

  /**
   * Consumes the session's queue (declaring it again: it may have expired) until `stop`. `onReady` after each setup
   * (the first, and again after a broker reconnect); both callbacks get the consumer, which may be before this
   * resolves.
   */
  async consume(
    session: CliQueueSession,
    onMessage: (message: ConsumeMessage, consumer: CliConsumer) => void,
    onReady: (consumer: CliConsumer) => void,
  ): Promise<CliConsumer> {
    const wrapper = this.wrapper();
    let current: { channel: Channel; tag: string } | undefined;
    const unacked = new Set<ConsumeMessage>();
    const channelOf = new WeakMap<ConsumeMessage, Channel>();
    const setup = async (channel: Channel) => {
      const queue = await declareCliSessionQueue(channel, session);
      const { consumerTag } = await channel.consume(queue, (message) => {
        if (!message) return; // cancelled by the broker (queue deleted): the next setup declares it again
        unacked.add(message);
        channelOf.set(message, channel);
        onMessage(message, consumer);
      });
      current = { channel, tag: consumerTag };
      onReady(consumer);
    };
    const consumer: CliConsumer = {
      ack: (message) => {
        if (!unacked.delete(message)) return;
        const channel = channelOf.get(message);
        // A message of a channel that has closed since is redelivered by the broker anyway.
        if (channel && channel === current?.channel) tryTo(() => channel.ack(message));
      },
      stop: async () => {
        await wrapper.removeSetup(setup, async (channel: Channel) => {
          if (current?.channel !== channel) return;
          await channel.cancel(current.tag).catch(() => undefined);
          for (const message of unacked) if (channelOf.get(message) === channel) tryTo(() => channel.nack(message));
          unacked.clear();
        });
      },
    };
    await wrapper.addSetup(setup);
    return consumer;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.channel?.close().catch(() => undefined);
  }
}

function tryTo(settle: () => void): void {
  try {
    settle();
  } catch {
    // The channel closed meanwhile: the broker gives the message to the next consumer.
  }
}
