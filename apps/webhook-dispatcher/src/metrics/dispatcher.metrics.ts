import { Injectable } from '@nestjs/common';
import { Counter, Gauge, Histogram } from 'prom-client';
import { PlatformMetrics } from '#platform';

/** How an attempt ended. */
export const OUTCOMES = ['success', 'http_error', 'no_response'] as const;

/** What followed an attempt or a message, besides a success. */
export const DECISIONS = [
  'retry',
  'parked',
  'failed',
  'slow_lane',
  'handed_over',
  'stand_in_dropped',
  'redelivery_dropped',
  'skipped',
  'rate_limited',
  'superseded',
  'recovered',
  'recover_cancelled',
] as const;

/**
 * The dispatcher's delivery metrics, in the process's registry (served at /metrics). Every outcome and decision is
 * there from the start, at 0, so that rates and ratios over them exist before the first one happens. The gauges read
 * at scrape time are apart: QueueDepthMetrics, WebhookHealthMetrics (failing webhooks), PartitionMaintenanceMetrics.
 */
@Injectable()
export class DispatcherMetrics {
  readonly deliveries: Counter<'outcome'>;
  readonly scheduled: Counter<'decision'>;
  readonly fannedOut: Counter;
  readonly latency: Histogram;
  readonly eventAge: Histogram;
  readonly inFlight: Gauge;

  constructor(platform: PlatformMetrics) {
    const registers = [platform.registry];
    this.deliveries = new Counter({
      name: 'webhook_deliveries_total',
      help: 'Delivery attempts by outcome: success (2xx), http_error (other status), no_response (status 0)',
      labelNames: ['outcome'] as const,
      registers,
    });
    this.scheduled = new Counter({
      name: 'webhook_delivery_decisions_total',
      help: 'What followed: retry (scheduled), parked (repeats used up), failed (no retry); slow_lane (webhook slow or saturated); handed_over (a long attempt gave its message back); stand_in_dropped, redelivery_dropped (its attempt was already logged); skipped (webhook disabled); superseded (a repeat not made: a newer event of its subject was delivered); recovered (queued by a recover), recover_cancelled (a recovered delivery not made: its recover was cancelled)',
      labelNames: ['decision'] as const,
      registers,
    });
    for (const outcome of OUTCOMES) this.deliveries.inc({ outcome }, 0);
    for (const decision of DECISIONS) this.scheduled.inc({ decision }, 0);
    this.fannedOut = new Counter({
      name: 'webhook_fanout_deliveries_total',
      help: 'Deliveries made by the fan-out (first attempts made, or logged as skipped for a disabled webhook)',
      registers,
    });
    this.latency = new Histogram({
      name: 'webhook_delivery_duration_seconds',
      help: 'Duration of one delivery attempt (request to complete response)',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20],
      registers,
    });
    this.eventAge = new Histogram({
      name: 'webhook_event_to_delivery_seconds',
      help: 'Time from the event (occurredAt) to the end of its first delivery attempt',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5, 30, 60],
      registers,
    });
    this.inFlight = new Gauge({
      name: 'webhook_deliveries_in_flight',
      help: 'Delivery attempts in progress in this process',
      registers,
    });
  }
}
