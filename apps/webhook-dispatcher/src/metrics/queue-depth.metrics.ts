import { Injectable } from '@nestjs/common';
import { Gauge } from 'prom-client';
import { AmqpClient, durableQueues } from '#messaging';
import { PlatformMetrics, ScrapeRead } from '#platform';
import { WebhookDispatcherConfig } from '../config/webhook-dispatcher.config.js';

/**
 * The depth of every dispatcher queue, read from RabbitMQ at scrape time: the only place that reports queue depths.
 * Each value is the cluster's, so every dispatcher process reports the same one.
 */
@Injectable()
export class QueueDepthMetrics {
  constructor(platform: PlatformMetrics, amqp: AmqpClient, config: WebhookDispatcherConfig) {
    const queues = durableQueues(config.topology);
    const broker = new ScrapeRead('the queue depths');
    const gauge: Gauge<'queue'> = new Gauge({
      name: 'webhook_queue_messages_ready',
      help:
        'Messages waiting in a dispatcher queue: events and deliveries not yet taken (queue lag), repeats and ' +
        'stand-ins waiting for their time (dispatcher.retry.*, dispatcher.guard.*), parked messages (*.parked); NaN ' +
        'when the broker did not answer. Cluster-wide: every dispatcher process reports the same value, aggregate ' +
        'with max()',
      labelNames: ['queue'] as const,
      registers: [platform.registry],
      collect: async () => {
        const depths = await broker.read(() => Promise.all(queues.map((queue) => amqp.queueDepth(queue))));
        for (const [i, queue] of queues.entries()) gauge.set({ queue }, depths?.[i] ?? NaN);
      },
    });
  }
}
