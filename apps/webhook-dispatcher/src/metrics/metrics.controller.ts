import { Controller, Get, Header } from '@nestjs/common';
import { AmqpClient, QUEUES, SLOW_LANE_QUEUES } from '#messaging';
import { DispatcherMetrics } from './dispatcher.metrics.js';

@Controller('metrics')
export class MetricsController {
  constructor(
    private readonly metrics: DispatcherMetrics,
    private readonly amqp: AmqpClient,
  ) {}

  /** Prometheus text format. Queue depths are read from the broker at scrape time. */
  @Get()
  @Header('content-type', 'text/plain; version=0.0.4')
  async scrape(): Promise<string> {
    for (const queue of [
      QUEUES.dispatcherEvents,
      QUEUES.deliveries,
      ...SLOW_LANE_QUEUES,
      QUEUES.parkedDeliveries,
      QUEUES.parkedEvents,
    ]) {
      const depth = await this.amqp.queueDepth(queue).catch(() => undefined);
      if (depth !== undefined) this.metrics.queueDepth.set({ queue }, depth);
    }
    return this.metrics.registry.metrics();
  }
}
