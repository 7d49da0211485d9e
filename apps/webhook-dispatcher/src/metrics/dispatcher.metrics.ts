import { Injectable } from '@nestjs/common';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Prometheus metrics of one dispatcher process, served at /metrics. */
@Injectable()
export class DispatcherMetrics {
  readonly registry = new Registry();

  readonly deliveries = new Counter({
    name: 'webhook_deliveries_total',
    help: 'Delivery attempts by outcome: success (2xx), http_error (other status), no_response (status 0)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly scheduled = new Counter({
    name: 'webhook_delivery_decisions_total',
    help: 'What followed: retry (scheduled), parked (repeats used up), failed (no retry); slow_lane (webhook slow or saturated); handed_over (a long attempt gave its message back); stand_in_dropped, redelivery_dropped (its attempt was already logged)',
    labelNames: ['decision'] as const,
    registers: [this.registry],
  });

  readonly fannedOut = new Counter({
    name: 'webhook_fanout_deliveries_total',
    help: 'Delivery messages published by the fan-out',
    registers: [this.registry],
  });

  readonly latency = new Histogram({
    name: 'webhook_delivery_duration_seconds',
    help: 'Duration of one delivery attempt (request to complete response)',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20],
    registers: [this.registry],
  });

  readonly eventAge = new Histogram({
    name: 'webhook_event_to_delivery_seconds',
    help: 'Time from the event (occurredAt) to the end of its first delivery attempt',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5, 30, 60],
    registers: [this.registry],
  });

  readonly inFlight = new Gauge({
    name: 'webhook_deliveries_in_flight',
    help: 'Delivery attempts in progress in this process',
    registers: [this.registry],
  });

  readonly queueDepth = new Gauge({
    name: 'webhook_queue_messages_ready',
    help: 'Messages waiting in a dispatcher queue (queue lag)',
    labelNames: ['queue'] as const,
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }
}
