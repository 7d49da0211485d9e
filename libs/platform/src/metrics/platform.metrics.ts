import { Injectable } from '@nestjs/common';
import { Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * prom-client's default metrics that `promtool check metrics` refuses: gauges named like counters (`_total`). The
 * same numbers remain, by type, in `nodejs_active_handles`, `nodejs_active_requests` and `nodejs_active_resources`
 * (`sum()` them for the total).
 */
const GAUGES_NAMED_LIKE_COUNTERS = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
];

/** Label of a request that matched no route (404s, malformed paths): the raw URL would be unbounded. */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * The process's Prometheus registry, served at /metrics: Node's default metrics and HTTP requests by route template
 * and status. Each app registers its own metrics into `registry`.
 */
@Injectable()
export class PlatformMetrics {
  readonly registry = new Registry();

  private readonly requests = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP requests by method, route template (unmatched: no route) and status, and how long they took to answer',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    for (const name of GAUGES_NAMED_LIKE_COUNTERS) this.registry.removeSingleMetric(name);
  }

  /** Counts one answered request; `route` is the route's template (`/v1.17/transactions/:uuid`), never its URL. */
  observeRequest(method: string, route: string | undefined, status: number, seconds: number): void {
    this.requests.observe({ method, route: route ?? UNMATCHED_ROUTE, status }, seconds);
  }
}
