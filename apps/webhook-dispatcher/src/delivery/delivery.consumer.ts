import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import type { ConsumeMessage } from 'amqplib';
import { AmqpClient, QUEUES, readDelivery, ROUTING_KEYS, SLOW_LANE_QUEUES } from '#messaging';
import { continueTrace } from '#platform';
import { WebhookDispatcherConfig } from '../config/webhook-dispatcher.config.js';
import { DeliveryService, type Lane, type Origin } from './delivery.service.js';

/**
 * Consumes `dispatcher.deliveries` with DISPATCHER_CONCURRENCY messages in flight, and each shard of the slow lane
 * (`dispatcher.deliveries.slow[.n]`, webhooks that hang) with its share of DISPATCHER_SLOW_LANE_CONCURRENCY. A message is acked only
 * after its attempt is logged and any repeat is safely queued — or, for an attempt that runs long in the
 * delivery queue, once a stand-in is queued in the guard queue; if the process dies first, the broker
 * redelivers it (or the stand-in arrives) and another dispatcher attempts it (at-least-once). A message that is not a
 * delivery message of a known version, or whose `x-attempt` or `x-guard` header is bad, is parked in
 * `dispatcher.deliveries.parked`, with its reason.
 */
@Injectable()
export class DeliveryConsumer implements OnApplicationBootstrap {
  constructor(
    private readonly amqp: AmqpClient,
    private readonly deliveries: DeliveryService,
    private readonly config: WebhookDispatcherConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.amqp.consume(QUEUES.deliveries, (raw) => this.handle(raw, 'normal'), {
      prefetch: this.config.concurrency,
      priority: this.config.consumerPriority,
    });
    // All shards on one channel, each consumer with its share of the slow lane's prefetch.
    await this.amqp.consume(SLOW_LANE_QUEUES, (raw) => this.handle(raw, 'slow'), {
      prefetch: Math.ceil(this.config.slowLaneConcurrency / SLOW_LANE_QUEUES.length),
      priority: this.config.consumerPriority,
    });
    // Recovers' deliveries: their jobs keep a window of them queued; attempted on a prefetch of their own.
    await this.amqp.consume(QUEUES.recoverDeliveries, (raw) => this.handle(raw, 'recover'), {
      prefetch: this.config.recoverConcurrency,
      priority: this.config.consumerPriority,
    });
  }

  private async handle(raw: ConsumeMessage, lane: Lane): Promise<'ack'> {
    const read = readDelivery(raw.content, raw.properties.headers);
    if (!read.ok) {
      await this.amqp.park(raw, ROUTING_KEYS.parkedDeliveries, read.reason);
      return 'ack';
    }
    const { message, attempt, guard, rateAt } = read.value;
    const origin: Origin = guard ? 'guard' : raw.fields.redelivered ? 'redelivered' : 'fresh';
    // With tracing on, in the trace of the fan-out that published it (repeats keep its header).
    await continueTrace(raw.properties.headers, () =>
      this.deliveries.attempt({ message, attempt, lane, origin, rateAt }),
    );
    return 'ack';
  }
}
