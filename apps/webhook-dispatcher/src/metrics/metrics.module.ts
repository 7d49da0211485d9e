import { Module } from '@nestjs/common';
import { DispatcherMetrics } from './dispatcher.metrics.js';
import { QueueDepthMetrics } from './queue-depth.metrics.js';

/** The dispatcher's counters (exported: the features count into them) and the queue depths read at scrape time. */
@Module({
  providers: [DispatcherMetrics, QueueDepthMetrics],
  exports: [DispatcherMetrics],
})
export class MetricsModule {}
