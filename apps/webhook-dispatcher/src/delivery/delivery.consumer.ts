import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import type { ConsumeMessage } from 'amqplib';
import { AmqpClient, ATTEMPT_HEADER, GUARD_HEADER, QUEUES, SLOW_LANE_QUEUES, type DeliveryMessage } from '#messaging';
import { WebhookDispatcherConfig } from '../config/webhook-dispatcher.config.js';
import { DeliveryService, type Lane, type Origin } from './delivery.service.js';

/**
 * Consumes `dispatcher.deliveries` with DISPATCHER_CONCURRENCY messages in flight, and each shard of the slow lane
 * (`dispatcher.deliveries.slow[.n]`, webhooks that hang) with its share of DISPATCHER_SLOW_LANE_CONCURRENCY. A message is acked only
 * after its attempt is logged and any repeat is safely queued — or, for an attempt that runs long in the
 * delivery queue, once a stand-in is queued in the guard queue; if the process dies first, the broker
 * redelivers it (or the stand-in arrives) and another dispatcher attempts it (at-least-once).
 */
@Injectable()
export class DeliveryConsumer implements OnApplicationBootstrap {
  private readonly logger = new Logger(DeliveryConsumer.name);

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
  }

  private async handle(raw: ConsumeMessage, lane: Lane): Promise<'ack' | 'reject'> {
    let message: DeliveryMessage;
    try {
      message = JSON.parse(raw.content.toString()) as DeliveryMessage;
      if (typeof message.deliveryId !== 'string') throw new Error('no deliveryId');
    } catch {
      this.logger.error('rejected an unreadable delivery message; it is parked');
      return 'reject';
    }
    const headers = raw.properties.headers ?? {};
    const attempt = Number(headers[ATTEMPT_HEADER] ?? 1);
    const origin: Origin =
      headers[GUARD_HEADER] !== undefined ? 'guard' : raw.fields.redelivered ? 'redelivered' : 'fresh';
    await this.deliveries.attempt(message, Number.isInteger(attempt) && attempt >= 1 ? attempt : 1, lane, origin);
    return 'ack';
  }
}
