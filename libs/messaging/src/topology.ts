import type { ConfirmChannel } from 'amqplib';

/**
 * The whole RabbitMQ topology of the platform, declared by every app at connect (and again after every
 * reconnect), so that a message is never published to an exchange with no queue bound yet.
 *
 *   payments.events (topic) ──#──▶ dispatcher.events (quorum) ──▶ dispatcher fans out
 *   webhooks.deliveries (direct) ──deliver──▶ dispatcher.deliveries (quorum) ──▶ HTTP delivery
 *                                ──deliver-slow──▶ dispatcher.deliveries.slow (quorum): webhooks that hang
 *   dispatcher.retry.<ms> (quorum, TTL <ms>) ──dead-letters──▶ webhooks.deliveries/deliver
 *   dispatcher.guard.<ms> (quorum, TTL <ms>) ──dead-letters──▶ webhooks.deliveries/deliver: stand-ins for
 *     attempts that outlived their message (see the dispatcher's DeliveryService)
 *   payments.dead-letter (direct) ──▶ dispatcher.events.parked, dispatcher.deliveries.parked
 *   webhooks.config (fanout) ──▶ one exclusive queue per dispatcher process (cache refresh)
 */
/** CONTRACT §1 default. */
export const DEFAULT_AMQP_URL = 'amqp://guest:guest@127.0.0.1:5672';

export const EXCHANGES = {
  events: 'payments.events',
  deliveries: 'webhooks.deliveries',
  config: 'webhooks.config',
  deadLetter: 'payments.dead-letter',
} as const;

export const QUEUES = {
  dispatcherEvents: 'dispatcher.events',
  deliveries: 'dispatcher.deliveries',
  slowDeliveries: 'dispatcher.deliveries.slow',
  parkedEvents: 'dispatcher.events.parked',
  parkedDeliveries: 'dispatcher.deliveries.parked',
} as const;

export const ROUTING_KEYS = {
  deliver: 'deliver',
  deliverSlow: 'deliver-slow',
  parkedEvents: 'events.parked',
  parkedDeliveries: 'deliveries.parked',
} as const;

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

export interface TopologyOptions {
  /** Distinct delays (ms) for which a delay queue is declared. */
  retryDelaysMs: readonly number[];
  /** The delay of the guard queue this process publishes to (dispatchers only). */
  guardDelayMs?: number;
}

const quorum = { 'x-queue-type': 'quorum' };

export async function declareTopology(channel: ConfirmChannel, options: TopologyOptions): Promise<void> {
  await channel.assertExchange(EXCHANGES.events, 'topic', { durable: true });
  await channel.assertExchange(EXCHANGES.deliveries, 'direct', { durable: true });
  await channel.assertExchange(EXCHANGES.config, 'fanout', { durable: true });
  await channel.assertExchange(EXCHANGES.deadLetter, 'direct', { durable: true });

  await channel.assertQueue(QUEUES.parkedEvents, { durable: true, arguments: quorum });
  await channel.bindQueue(QUEUES.parkedEvents, EXCHANGES.deadLetter, ROUTING_KEYS.parkedEvents);
  await channel.assertQueue(QUEUES.parkedDeliveries, { durable: true, arguments: quorum });
  await channel.bindQueue(QUEUES.parkedDeliveries, EXCHANGES.deadLetter, ROUTING_KEYS.parkedDeliveries);

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

  // The slow lane: deliveries of webhooks that currently hang or answer slowly wait here with a prefetch of
  // their own, so they never hold the delivery queue's prefetch that healthy webhooks need.
  await channel.assertQueue(QUEUES.slowDeliveries, {
    durable: true,
    arguments: deliveryQueueArguments,
  });
  await channel.bindQueue(QUEUES.slowDeliveries, EXCHANGES.deliveries, ROUTING_KEYS.deliverSlow);

  const delayQueues = [...new Set(options.retryDelaysMs)].map((delayMs) => [retryQueueName(delayMs), delayMs] as const);
  if (options.guardDelayMs !== undefined)
    delayQueues.push([guardQueueName(options.guardDelayMs), options.guardDelayMs]);
  for (const [name, delayMs] of delayQueues) {
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
