import type { ConfirmChannel } from 'amqplib';

/**
 * The whole RabbitMQ topology of the platform, declared by every app at connect (and again after every
 * reconnect), so that a message is never published to an exchange with no queue bound yet.
 *
 *   payments.events (topic) ──#──▶ dispatcher.events (quorum) ──▶ dispatcher fans out
 *   webhooks.deliveries (direct) ──deliver──▶ dispatcher.deliveries (quorum) ──▶ HTTP delivery
 *                                ──deliver-slow[.<n>]──▶ dispatcher.deliveries.slow[.<n>] (quorum, 8 shards): webhooks that
 *                                  hang or answer slowly, each webhook always in the same shard
 *                                ──deliver-recover──▶ dispatcher.deliveries.recover (quorum): a recover's deliveries,
 *                                  fed by its job at the pace they are attempted, out of the way of everyone's first
 *                                  attempts
 *   dispatcher.retry.<ms> (quorum, TTL <ms>) ──dead-letters──▶ webhooks.deliveries/deliver
 *   dispatcher.guard.<ms> (quorum, TTL <ms>) ──dead-letters──▶ webhooks.deliveries/deliver: stand-ins for
 *     attempts that outlived their message (see the dispatcher's DeliveryService)
 *   payments.dead-letter (direct) ──▶ dispatcher.events.parked, dispatcher.deliveries.parked, dispatcher.config.parked,
 *     dispatcher.commands.parked
 *   webhooks.config (fanout) ──▶ one exclusive queue per dispatcher process (cache refresh)
 *   transaction-api.rate (fanout, not durable) ──▶ one exclusive queue per transaction-api process: each one's
 *     rate-limit counts, every 100 ms
 *   webhooks.commands (topic, routing key = command type) ──#──▶ dispatcher.commands (quorum): webhook-config asks
 *     the dispatcher for a test delivery or a resend; the dispatcher creates and numbers the attempt
 *   webhooks.health (topic, routing key = report type) ──#──▶ config.webhook-health (quorum): the dispatcher tells
 *     webhook-config that a webhook has been failing for an hour, or long enough to be disabled
 *   payments.events ──cli.<merchant>.<integration>.<kind> (a BCC routing key of each event)──▶ cli.session.<id>
 *   payments.cli (topic) ──cli.<merchant>.<integration>.<kind>──▶ cli.session.<id> (classic, not durable, deleted 5 min
 *     after its last consumer left): one queue per `payments listen` session, declared and consumed by webhook-config
 *     (its real events, and the samples of `payments trigger`, which only the sessions get)
 */
/** AMQP_URL when unset: the local RabbitMQ with its default guest login. */
export const DEFAULT_AMQP_URL = 'amqp://guest:guest@127.0.0.1:5672';

export const EXCHANGES = {
  events: 'payments.events',
  deliveries: 'webhooks.deliveries',
  config: 'webhooks.config',
  /** transaction-api's rate-limit counts, from each process to every other (lost at a broker restart: no matter). */
  rate: 'transaction-api.rate',
  /** webhook-config's requests to the dispatcher (test deliveries, resends). */
  commands: 'webhooks.commands',
  /** The dispatcher's reports on failing webhooks, for webhook-config. */
  health: 'webhooks.health',
  deadLetter: 'payments.dead-letter',
  /** `payments trigger`'s sample events, for `payments listen` sessions only (no webhook receives them). */
  cli: 'payments.cli',
} as const;

export const QUEUES = {
  dispatcherEvents: 'dispatcher.events',
  deliveries: 'dispatcher.deliveries',
  /** A recover's deliveries (its job keeps at most a window of them here). */
  recoverDeliveries: 'dispatcher.deliveries.recover',
  parkedEvents: 'dispatcher.events.parked',
  parkedDeliveries: 'dispatcher.deliveries.parked',
  /** webhooks.config messages a dispatcher could not read (each process parks its own copy). */
  parkedConfig: 'dispatcher.config.parked',
  dispatcherCommands: 'dispatcher.commands',
  parkedCommands: 'dispatcher.commands.parked',
  /** webhook-config's queue of the dispatcher's health reports. */
  webhookHealth: 'config.webhook-health',
  parkedWebhookHealth: 'config.webhook-health.parked',
} as const;

export const ROUTING_KEYS = {
  deliver: 'deliver',
  deliverRecovered: 'deliver-recover',
  parkedEvents: 'events.parked',
  parkedDeliveries: 'deliveries.parked',
  parkedConfig: 'config.parked',
  parkedCommands: 'commands.parked',
  parkedWebhookHealth: 'webhook-health.parked',
} as const;

/**
 * The routing key under which `payments listen` sessions get an event: its merchant, integration and kind. Every
 * platform event is published with it as a BCC routing key besides its type (publishPlatformEvent), so a session's
 * queue binds exactly the events it wants and RabbitMQ routes them (a topic exchange's match costs the same whether a
 * thousand sessions or none are bound); an event of no integration has none (a session always has an integration).
 */
export function cliRoutingKey(merchantId: string, integrationId: string, kind: string): string {
  return `cli.${merchantId}.${integrationId}.${kind}`;
}

/** A `payments listen` session's queue. */
export const cliSessionQueue = (sessionId: string): string => `cli.session.${sessionId}`;

/** How long a session's queue (and the events in it) outlives its last consumer. */
export const CLI_SESSION_KEEP_MS = 5 * 60_000;

/** Events a session's queue holds at most: beyond, the oldest are dropped. */
export const CLI_SESSION_MAX_EVENTS = 10_000;

/**
 * Declares a session's queue and binds the kinds it listens to, on `payments.events` (real events) and `payments.cli`
 * (samples). Classic and not durable: a development session's events wait for a reconnect, not for a broker restart.
 * The same arguments every time (a queue declared again with others is refused).
 */
export async function declareCliSessionQueue(
  channel: Pick<ConfirmChannel, 'assertQueue' | 'bindQueue'>,
  session: { id: string; merchantId: string; integrationId: string; events: readonly string[] },
): Promise<string> {
  const queue = cliSessionQueue(session.id);
  await channel.assertQueue(queue, {
    durable: false,
    arguments: {
      'x-queue-type': 'classic',
      'x-expires': CLI_SESSION_KEEP_MS,
      'x-max-length': CLI_SESSION_MAX_EVENTS,
    },
  });
  for (const kind of session.events) {
    const key = cliRoutingKey(session.merchantId, session.integrationId, kind);
    await channel.bindQueue(queue, EXCHANGES.events, key);
    await channel.bindQueue(queue, EXCHANGES.cli, key);
  }
  return queue;
}

/**
 * The slow lane is split into this many queues, each consumed on a prefetch of its own, and a webhook's deliveries
 * always go to the same one ({@link slowLaneShard}). A queue is first in, first out: one webhook that hangs and
 * receives more than its shard can attempt per timeout builds a backlog there, and every delivery behind it waits.
 * With shards, only the webhooks that share its shard (1 in 8) wait behind it.
 */
export const SLOW_LANE_SHARDS = 8;

/** Shard 0 keeps the name the slow lane had before it was split, so messages waiting there are still consumed. */
const slowLaneQueueName = (shard: number) =>
  shard === 0 ? 'dispatcher.deliveries.slow' : `dispatcher.deliveries.slow.${shard}`;

export const slowLaneRoutingKey = (shard: number) => (shard === 0 ? 'deliver-slow' : `deliver-slow.${shard}`);

/** Every shard's queue, shard 0 first. */
export const SLOW_LANE_QUEUES: readonly string[] = Array.from({ length: SLOW_LANE_SHARDS }, (_, shard) =>
  slowLaneQueueName(shard),
);

/** The slow-lane shard of a webhook: a stable hash (32-bit FNV-1a) of its id, the same in every process. */
export function slowLaneShard(webhookId: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < webhookId.length; i += 1) {
    hash ^= webhookId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % SLOW_LANE_SHARDS;
}

/** Header a parked message carries: why it was parked. */
export const PARKED_REASON_HEADER = 'x-parked-reason';

/** A message redelivered this many times (handler crashed or process died each time) is parked. */
export const POISON_DELIVERY_LIMIT = 20;

/** Name of the delay queue for one retry delay. One queue per distinct delay keeps quorum-queue TTLs FIFO. */
export const retryQueueName = (delayMs: number) => `dispatcher.retry.${delayMs}ms`;

/**
 * Name of the queue where a stand-in for a long-running attempt waits `delayMs` (one queue per distinct delay, as
 * for retries). After the delay it is dead-lettered to the delivery queue, where it is dropped if the attempt
 * was logged meanwhile, and attempted if not (its dispatcher died).
 */
export const guardQueueName = (delayMs: number) => `dispatcher.guard.${delayMs}ms`;

/*
 * Rate queues (`dispatcher.rate.<ms>ms`, TTL queues a rate-limited webhook's deliveries cycled through until their
 * booked start) are no longer declared: those deliveries wait in the dispatcher's schedule (delivery.delivery_wait).
 * A broker that still has them keeps them; what they hold is dead-lettered to the delivery queue within their TTL as
 * before (the dispatcher puts a delivery whose `x-rate-at` is still far in its schedule), and an empty one may then be
 * deleted (docs/webhook-dispatcher.md, Rate limit).
 */

export interface TopologyOptions {
  /** Distinct delays (ms) for which a delay queue is declared. */
  retryDelaysMs: readonly number[];
  /** The delay of the guard queue this process publishes to (dispatchers only). */
  guardDelayMs?: number;
}

/** The delay queues declared with these options, each with its delay (ms): retries, then the guard queue. */
function delayQueues(options: TopologyOptions): (readonly [name: string, delayMs: number])[] {
  const queues = [...new Set(options.retryDelaysMs)].map((delayMs) => [retryQueueName(delayMs), delayMs] as const);
  if (options.guardDelayMs !== undefined) queues.push([guardQueueName(options.guardDelayMs), options.guardDelayMs]);
  return queues;
}

/**
 * Every durable queue {@link declareTopology} declares with these options: the events and delivery queues, each
 * slow-lane shard, the command queue, the delay queues (repeats and stand-ins waiting for their time) and the parked
 * queues.
 */
export function durableQueues(options: TopologyOptions): string[] {
  return [
    QUEUES.dispatcherEvents,
    QUEUES.deliveries,
    QUEUES.recoverDeliveries,
    ...SLOW_LANE_QUEUES,
    QUEUES.dispatcherCommands,
    ...delayQueues(options).map(([name]) => name),
    QUEUES.parkedEvents,
    QUEUES.parkedDeliveries,
    QUEUES.parkedConfig,
    QUEUES.parkedCommands,
    QUEUES.webhookHealth,
    QUEUES.parkedWebhookHealth,
  ];
}

/**
 * Replicas of each quorum queue, declared when the queue is created: with three, a queue keeps working (and loses no
 * confirmed message) when one node is lost. On a cluster of fewer nodes the queue gets as many as there are; on a
 * larger one, three of them (RabbitMQ's leader locator spreads the queues' leaders, deploy/rabbitmq/30-cluster.conf).
 */
export const QUORUM_INITIAL_GROUP_SIZE = 3;

/**
 * Whether RabbitMQ refused a queue declaration because the queue exists without `x-quorum-initial-group-size`
 * (declared by a release before it was declared): the queue stays as it is; the client declares without it.
 */
export const isGroupSizeMismatch = (error: Error): boolean =>
  /inequivalent arg 'x-quorum-initial-group-size'/.test(error.message);

export interface DeclareOptions {
  /**
   * Declare `x-quorum-initial-group-size` (the default). False for a broker whose queues predate it: RabbitMQ refuses
   * a declaration whose arguments differ from the existing queue's, and the argument only matters at creation.
   */
  groupSize?: boolean;
}

export async function declareTopology(
  channel: ConfirmChannel,
  options: TopologyOptions,
  { groupSize = true }: DeclareOptions = {},
): Promise<void> {
  const quorum = {
    'x-queue-type': 'quorum',
    ...(groupSize ? { 'x-quorum-initial-group-size': QUORUM_INITIAL_GROUP_SIZE } : {}),
  };
  await channel.assertExchange(EXCHANGES.events, 'topic', { durable: true });
  await channel.assertExchange(EXCHANGES.deliveries, 'direct', { durable: true });
  await channel.assertExchange(EXCHANGES.config, 'fanout', { durable: true });
  await channel.assertExchange(EXCHANGES.commands, 'topic', { durable: true });
  await channel.assertExchange(EXCHANGES.deadLetter, 'direct', { durable: true });
  await channel.assertExchange(EXCHANGES.rate, 'fanout', { durable: false });
  await channel.assertExchange(EXCHANGES.cli, 'topic', { durable: true });

  await channel.assertQueue(QUEUES.parkedEvents, { durable: true, arguments: quorum });
  await channel.bindQueue(QUEUES.parkedEvents, EXCHANGES.deadLetter, ROUTING_KEYS.parkedEvents);
  await channel.assertQueue(QUEUES.parkedDeliveries, { durable: true, arguments: quorum });
  await channel.bindQueue(QUEUES.parkedDeliveries, EXCHANGES.deadLetter, ROUTING_KEYS.parkedDeliveries);
  await channel.assertQueue(QUEUES.parkedConfig, { durable: true, arguments: quorum });
  await channel.bindQueue(QUEUES.parkedConfig, EXCHANGES.deadLetter, ROUTING_KEYS.parkedConfig);
  await channel.assertQueue(QUEUES.parkedCommands, { durable: true, arguments: quorum });
  await channel.bindQueue(QUEUES.parkedCommands, EXCHANGES.deadLetter, ROUTING_KEYS.parkedCommands);

  await channel.assertQueue(QUEUES.dispatcherEvents, {
    durable: true,
    arguments: {
      ...quorum,
      'x-delivery-limit': POISON_DELIVERY_LIMIT,
      'x-dead-letter-exchange': EXCHANGES.deadLetter,
      'x-dead-letter-routing-key': ROUTING_KEYS.parkedEvents,
    },
  });
  await channel.bindQueue(QUEUES.dispatcherEvents, EXCHANGES.events, '#');

  await channel.assertQueue(QUEUES.dispatcherCommands, {
    durable: true,
    arguments: {
      ...quorum,
      'x-delivery-limit': POISON_DELIVERY_LIMIT,
      'x-dead-letter-exchange': EXCHANGES.deadLetter,
      'x-dead-letter-routing-key': ROUTING_KEYS.parkedCommands,
    },
  });
  await channel.bindQueue(QUEUES.dispatcherCommands, EXCHANGES.commands, '#');

  await channel.assertExchange(EXCHANGES.health, 'topic', { durable: true });
  await channel.assertQueue(QUEUES.parkedWebhookHealth, { durable: true, arguments: quorum });
  await channel.bindQueue(QUEUES.parkedWebhookHealth, EXCHANGES.deadLetter, ROUTING_KEYS.parkedWebhookHealth);
  await channel.assertQueue(QUEUES.webhookHealth, {
    durable: true,
    arguments: {
      ...quorum,
      'x-delivery-limit': POISON_DELIVERY_LIMIT,
      'x-dead-letter-exchange': EXCHANGES.deadLetter,
      'x-dead-letter-routing-key': ROUTING_KEYS.parkedWebhookHealth,
    },
  });
  await channel.bindQueue(QUEUES.webhookHealth, EXCHANGES.health, '#');

  // Both lanes park a poison or rejected delivery the same way.
  const deliveryQueueArguments = {
    ...quorum,
    'x-delivery-limit': POISON_DELIVERY_LIMIT,
    'x-dead-letter-exchange': EXCHANGES.deadLetter,
    'x-dead-letter-routing-key': ROUTING_KEYS.parkedDeliveries,
  };
  await channel.assertQueue(QUEUES.deliveries, {
    durable: true,
    arguments: deliveryQueueArguments,
  });
  await channel.bindQueue(QUEUES.deliveries, EXCHANGES.deliveries, ROUTING_KEYS.deliver);

  // The slow lane: deliveries of webhooks that currently hang or answer slowly wait here with prefetches of their
  // own, so they never hold the delivery queue's prefetch that healthy webhooks need.
  for (const [shard, queue] of SLOW_LANE_QUEUES.entries()) {
    await channel.assertQueue(queue, { durable: true, arguments: deliveryQueueArguments });
    await channel.bindQueue(queue, EXCHANGES.deliveries, slowLaneRoutingKey(shard));
  }
  // A recover's deliveries: a backlog of its own, never ahead of anybody's first attempts in the delivery queue.
  await channel.assertQueue(QUEUES.recoverDeliveries, { durable: true, arguments: deliveryQueueArguments });
  await channel.bindQueue(QUEUES.recoverDeliveries, EXCHANGES.deliveries, ROUTING_KEYS.deliverRecovered);

  for (const [name, delayMs] of delayQueues(options)) {
    await channel.assertQueue(name, {
      durable: true,
      arguments: {
        ...quorum,
        'x-message-ttl': delayMs,
        'x-dead-letter-exchange': EXCHANGES.deliveries,
        'x-dead-letter-routing-key': ROUTING_KEYS.deliver,
        // Quorum queues dead-letter at-least-once only with reject-publish overflow.
        'x-dead-letter-strategy': 'at-least-once',
        'x-overflow': 'reject-publish',
      },
    });
  }
}
