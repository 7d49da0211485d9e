import { Logger } from '@nestjs/common';
import type { ConfirmChannel, ConsumeMessage, Options } from 'amqplib';
import amqp, { type AmqpConnectionManager, type ChannelWrapper } from 'amqp-connection-manager';
import { amqpNodeLabel, nodeAnswers, rotateRandomly } from './amqp-urls.js';
import { ChannelSettler } from './channel-settler.js';
import { amqplibSocket, batchWritesPerTurn } from './socket-batching.js';
import {
  declareTopology,
  EXCHANGES,
  isGroupSizeMismatch,
  PARKED_REASON_HEADER,
  type TopologyOptions,
} from './topology.js';

/** What a consumer's handler decides for one message. */
export type ConsumeOutcome = 'ack' | 'requeue' | 'reject';

export interface ConsumeOptions {
  prefetch: number;
  /** Exclusive, auto-deleted queue declared by this consumer (e.g. a per-process config-refresh queue). */
  exclusiveBindTo?: { exchange: string; routingKey?: string };
  /** Called each time the consumer is (re)established, e.g. to drop state that missed messages while down. */
  onReady?: () => void;
  /**
   * The consumer's priority (`x-priority`): RabbitMQ gives a queue's messages to its highest-priority consumer that has
   * prefetch left, and to lower ones only while the higher ones are full. Consumers of equal priority share round-robin.
   */
  priority?: number;
}

export interface AmqpClientOptions {
  /**
   * The broker, or the nodes of one RabbitMQ cluster: the client connects to one (each process starts at a random
   * one) and, when that connection drops, reconnects to the next in the list, round-robin, every second.
   */
  url: string | readonly string[];
  /** Shown in the broker's connection list and in logs. */
  name: string;
  topology: TopologyOptions;
  /** A publish not confirmed within this time rejects (it may still be delivered: callers retry). */
  publishTimeoutMs?: number;
}

/**
 * How long a message whose handler threw is held before it is given back to its queue: 250 ms, doubling with each of
 * its earlier deliveries (the quorum queue's `x-delivery-count`), at most 5 s. A handler throws for a passing cause
 * (a publish the broker nacked while a queue's leader moved, a database away): given back at once, the message would
 * come straight back, fail again and use up the queue's delivery limit (POISON_DELIVERY_LIMIT) in a second, parking a
 * message that only needed a moment. Held like this, the limit spans about 80 s; a message that fails that long is
 * poison and parked. While held it keeps its place in the consumer's prefetch, so a consumer whose every message fails
 * slows down instead of spinning. Stopping the consumer gives held messages back at once.
 */
export function requeuePauseMs(earlierDeliveries: number): number {
  return Math.min(5_000, 250 * 2 ** Math.max(0, earlierDeliveries));
}

/** How each listed node looks from this process (health): the one it is connected to, up (answers), or down. */
export type AmqpNodeState = 'connected' | 'up' | 'down';

/**
 * The platform's RabbitMQ client: one connection that reconnects by itself, one confirm channel for
 * publishing (a publish resolves only once the broker has confirmed it), and one channel per consumer
 * with manual acks and a prefetch. The topology is declared on every (re)connect.
 */
export class AmqpClient {
  private readonly logger: Logger;
  private readonly connection: AmqpConnectionManager;
  private readonly publisher: ChannelWrapper;
  private readonly consumers: ChannelWrapper[] = [];
  private readonly consumerTags = new Map<
    ChannelWrapper,
    { channel: ConfirmChannel; tags: string[]; settler: ChannelSettler }
  >();
  private readonly inFlight = new Set<Promise<void>>();
  private consuming = true;
  /** Resolved when consuming stops: ends the pauses of messages held before their requeue. */
  private stopped!: () => void;
  private readonly stopping = new Promise<void>((resolve) => (this.stopped = resolve));
  private closed = false;
  private reconnectTimer?: NodeJS.Timeout;
  private readonly urls: readonly string[];
  /** The URL of the node this process is connected to right now. */
  private connectedUrl?: string;
  /** Cleared once the broker's queues turn out to predate the declared group size (see DeclareOptions). */
  private declareGroupSize = true;

  constructor(private readonly options: AmqpClientOptions) {
    this.logger = new Logger(`AMQP:${options.name}`);
    this.urls = typeof options.url === 'string' ? [options.url] : [...options.url];
    if (this.urls.length === 0) throw new Error('AmqpClient needs at least one broker URL');
    this.connection = amqp.connect(rotateRandomly(this.urls), {
      heartbeatIntervalInSeconds: 5,
      reconnectTimeInSeconds: 1,
      connectionOptions: {
        // No Nagle: a small frame (a confirm wait, an ack) leaves at once instead of after the previous one's ACK.
        noDelay: true,
        // A node whose host is gone (no answer at all) is given up after 5 s for the next one, not the OS's minutes.
        timeout: 5_000,
        clientProperties: { connection_name: options.name },
      },
    });
    this.connection.on('connect', ({ connection, url }) => {
      const socket = amqplibSocket(connection);
      if (socket) batchWritesPerTurn(socket);
      else this.logger.warn('amqplib connection without a visible socket: frames are written one by one');
      this.connectedUrl = typeof url === 'string' ? url : undefined;
      this.logger.log(`connected to RabbitMQ${this.nodeSuffix(this.connectedUrl)}`);
    });
    this.connection.on('disconnect', ({ err }) => {
      const node = this.nodeSuffix(this.connectedUrl);
      this.connectedUrl = undefined;
      if (!this.closed)
        this.logger.warn(`disconnected from RabbitMQ${node}: ${err?.message ?? 'closed'}; reconnecting`);
    });
    this.connection.on('connectFailed', ({ err, url }) => {
      if (!this.closed) {
        this.logger.warn(
          `cannot reach RabbitMQ${this.nodeSuffix(typeof url === 'string' ? url : undefined)}: ${err?.message}; ` +
            (this.urls.length > 1 ? 'trying the next node' : 'retrying'),
        );
      }
    });
    this.publisher = this.connection.createChannel({
      name: `${options.name}:publisher`,
      confirm: true,
      publishTimeout: options.publishTimeoutMs ?? 10_000,
      setup: (channel: ConfirmChannel) => this.declare(channel),
    });
    this.publisher.on('error', (error: Error) => this.channelFailed(this.publisher, error));
  }

  /**
   * A channel's setup failed (declaring the topology, binding, consuming): the connection dropped meanwhile, or the
   * broker closed the channel (e.g. a queue declared elsewhere with other arguments). amqp-connection-manager reports
   * it as an 'error' event — which, unheard, would end the process — and leaves the channel half set up, without a
   * consumer, until the next reconnect. So: log it and reconnect after a second, which sets every channel up again.
   */
  private channelFailed(channel: ChannelWrapper, error: Error): void {
    if (this.closed) return;
    if (this.declareGroupSize && isGroupSizeMismatch(error)) {
      this.declareGroupSize = false;
      this.logger.warn(
        'the queues were created without x-quorum-initial-group-size (by an earlier release): declaring them as ' +
          'they are. Their replicas: rabbitmq-queues quorum_status <queue>; add one: rabbitmq-queues grow',
      );
    }
    this.logger.warn(`channel ${channel.name} could not be set up (${error.message}); reconnecting`);
    this.reconnectSoon();
  }

  private declare(channel: ConfirmChannel): Promise<void> {
    return declareTopology(channel, this.options.topology, { groupSize: this.declareGroupSize });
  }

  private reconnectSoon(): void {
    if (this.reconnectTimer || this.closed) return;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      if (!this.closed) this.connection.reconnect();
    }, 1_000);
    this.reconnectTimer.unref();
  }

  /** Resolves once connected and the topology is declared. */
  async waitForConnect(): Promise<void> {
    await this.publisher.waitForConnect();
  }

  isConnected(): boolean {
    return this.connection.isConnected();
  }

  /** ` at host:port` when several nodes are listed (which one matters then), else nothing. */
  private nodeSuffix(url: string | undefined): string {
    return url && this.urls.length > 1 ? ` at ${amqpNodeLabel(url)}` : '';
  }

  /** How many broker nodes AMQP_URL lists (more than one: the nodes of a cluster). */
  get nodeCount(): number {
    return this.urls.length;
  }

  /** `host:port` of the node this process is connected to; undefined while it is not connected. */
  connectedNode(): string | undefined {
    return this.connectedUrl && this.connection.isConnected() ? amqpNodeLabel(this.connectedUrl) : undefined;
  }

  /**
   * Every listed node by `host:port`: `connected` (this process's node), `up` (its AMQP port accepts a connection
   * within `timeoutMs`) or `down`. Each is probed now, in parallel, with a bare TCP connection.
   */
  async nodeStates(timeoutMs: number): Promise<Record<string, AmqpNodeState>> {
    const answers = await Promise.all(this.urls.map((url) => nodeAnswers(url, timeoutMs)));
    // Which node is this process's is read after the probes: the connection may have dropped meanwhile.
    const connected = this.connectedNode();
    return Object.fromEntries(
      this.urls.map((url, i): [string, AmqpNodeState] => {
        const label = amqpNodeLabel(url);
        return [label, label === connected ? 'connected' : answers[i] ? 'up' : 'down'];
      }),
    );
  }

  /** Proves the broker answers right now: a passive declare of a known exchange on the live channel. */
  async ping(timeoutMs: number): Promise<void> {
    if (!this.connection.isConnected()) throw new Error('not connected to RabbitMQ');
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.publisher.checkExchange('payments.events'),
        new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('RabbitMQ did not answer')), timeoutMs))),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Messages ready in `queue` (not counting those being handled). */
  async queueDepth(queue: string): Promise<number> {
    return (await this.publisher.checkQueue(queue)).messageCount;
  }

  /** Publishes persistently and resolves when the broker confirms; rejects on nack or timeout. */
  async publish(exchange: string, routingKey: string, body: Buffer, options: Options.Publish = {}): Promise<void> {
    await this.publisher.publish(exchange, routingKey, body, {
      persistent: true,
      contentType: 'application/json',
      ...options,
    });
  }

  /**
   * Parks a message its consumer cannot use (not JSON, wrong shape, unknown type or version, a bad header): publishes
   * it as received to the dead-letter exchange under `routingKey` (a parked queue) with the reason in
   * `x-parked-reason`, and logs it once with its message id — never its body, which may carry customer data. The
   * consumer acks the message once this resolves; if it rejects, the message is requeued like any failure.
   */
  async park(message: ConsumeMessage, routingKey: string, reason: string): Promise<void> {
    const { messageId, type, contentType, contentEncoding, timestamp, appId, correlationId, headers } =
      message.properties;
    await this.publish(EXCHANGES.deadLetter, routingKey, message.content, {
      messageId,
      type,
      contentType,
      contentEncoding,
      timestamp,
      appId,
      correlationId,
      headers: { ...headers, [PARKED_REASON_HEADER]: reason },
    });
    this.logger.warn(`parked message ${messageId ?? '(no message id)'} to ${routingKey}: ${reason}`);
  }

  /**
   * Consumes `queue` — or each of several queues, on one channel, each consumer with `prefetch` — with manual acks.
   * The handler's outcome decides ack / requeue / reject; a handler that throws is logged and the message requeued
   * after a pause (requeuePauseMs; the queue's delivery limit parks a poison message). Consumers are re-established after a reconnect; messages in
   * flight on a dead channel are redelivered.
   */
  async consume(
    queue: string | readonly string[],
    handler: (message: ConsumeMessage) => Promise<ConsumeOutcome>,
    options: ConsumeOptions,
  ): Promise<void> {
    const queues = typeof queue === 'string' ? [queue] : queue;
    const wrapper = this.connection.createChannel({
      name: `${this.options.name}:${queues.join(',') || 'exclusive'}`,
      confirm: false,
      setup: async (channel: ConfirmChannel) => {
        await this.declare(channel);
        // Per consumer (not per channel): every consumer started below gets this many unacked messages.
        await channel.prefetch(options.prefetch);
        let names = queues;
        if (options.exclusiveBindTo) {
          const declared = await channel.assertQueue(queues[0], { exclusive: true, autoDelete: true, durable: false });
          names = [declared.queue];
          await channel.bindQueue(
            declared.queue,
            options.exclusiveBindTo.exchange,
            options.exclusiveBindTo.routingKey ?? '',
          );
        }
        if (!this.consuming) return; // stopped: a reconnect must not start consuming again
        // One settler per channel: delivery tags, and a `multiple` ack, span all of the channel's consumers.
        const settler = new ChannelSettler(channel, (error) =>
          // The channel this message came on is gone; the broker redelivers the message elsewhere.
          this.logger.warn(`could not settle a message (channel closed): ${error.message}`),
        );
        const tags: string[] = [];
        for (const name of names) {
          const { consumerTag } = await channel.consume(
            name,
            (message) => {
              if (!message) {
                // The broker cancelled this consumer (its queue was deleted, or it timed out): set up again.
                this.logger.warn(`RabbitMQ cancelled the consumer of ${name}; reconnecting`);
                this.reconnectSoon();
                return;
              }
              settler.received(message);
              const work = this.handle(settler, message, handler);
              this.inFlight.add(work);
              void work.finally(() => this.inFlight.delete(work));
            },
            { priority: options.priority },
          );
          tags.push(consumerTag);
        }
        this.consumerTags.set(wrapper, { channel, tags, settler });
        options.onReady?.();
      },
    });
    wrapper.on('error', (error: Error) => this.channelFailed(wrapper, error));
    this.consumers.push(wrapper);
    await wrapper.waitForConnect();
  }

  /**
   * A channel for consumers that come and go while the process runs (webhook-config's `payments listen` connections,
   * one consumer each): the caller adds a setup per consumer (`addSetup`: declare its queue, consume, remember the
   * channel it got) and removes it with a teardown (`removeSetup`: cancel, give back what it holds). Setups run again
   * after every reconnect, on the new channel; messages unsettled on a dead channel are redelivered. The topology is
   * declared first and `prefetch` applies to each consumer. Closed with the client.
   */
  dynamicChannel(name: string, prefetch: number): ChannelWrapper {
    const wrapper = this.connection.createChannel({
      name: `${this.options.name}:${name}`,
      confirm: false,
      setup: async (channel: ConfirmChannel) => {
        await this.declare(channel);
        await channel.prefetch(prefetch);
      },
    });
    wrapper.on('error', (error: Error) => this.channelFailed(wrapper, error));
    this.consumers.push(wrapper);
    return wrapper;
  }

  private async handle(
    settler: ChannelSettler,
    message: ConsumeMessage,
    handler: (message: ConsumeMessage) => Promise<ConsumeOutcome>,
  ): Promise<void> {
    let outcome: ConsumeOutcome;
    try {
      outcome = await handler(message);
    } catch (error) {
      const earlier = Number(message.properties.headers?.['x-delivery-count'] ?? 0);
      const pauseMs = requeuePauseMs(earlier);
      this.logger.error(
        `handler failed for a message from ${message.fields.routingKey} (delivered ${earlier + 1} times); ` +
          `given back in ${pauseMs} ms: ${(error as Error).stack}`,
      );
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([this.stopping, new Promise((resolve) => (timer = setTimeout(resolve, pauseMs)))]);
      clearTimeout(timer);
      outcome = 'requeue';
    }
    if (outcome === 'ack') settler.ack(message);
    else settler.nack(message, outcome === 'requeue');
  }

  /** Messages being handled right now by this process. */
  get inFlightCount(): number {
    return this.inFlight.size;
  }

  /**
   * Graceful stop: cancels every consumer (the broker sends nothing more), then waits up to `graceMs` for
   * the handlers in flight to finish and settle their messages. Unsettled messages are redelivered by the
   * broker once the channel closes.
   */
  async stopConsuming(graceMs: number): Promise<void> {
    if (!this.consuming) return;
    this.consuming = false;
    this.stopped();
    await Promise.allSettled(
      [...this.consumerTags.values()].flatMap(({ channel, tags }) => tags.map((tag) => channel.cancel(tag))),
    );
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.inFlight]),
      new Promise((resolve) => (timer = setTimeout(resolve, graceMs))),
    ]);
    clearTimeout(timer);
    for (const { settler } of this.consumerTags.values()) settler.flush();
  }

  /** Stops consuming (in-flight handlers finish or their messages are redelivered), then closes. */
  async close(graceMs = 5_000): Promise<void> {
    await this.stopConsuming(graceMs);
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    await Promise.allSettled(this.consumers.map((consumer) => consumer.close()));
    await this.publisher.close().catch(() => undefined);
    await this.connection.close();
  }
}
