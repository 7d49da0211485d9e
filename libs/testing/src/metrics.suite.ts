import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { listen } from './http-app.harness.js';
import { METRIC_PREFIXES, exposedNames, metricNames, monitoringExpressions, promtool } from './monitoring.js';

export interface MetricsSuiteContext {
  baseUrl: string;
  /** GET /metrics: the body. */
  scrape(): Promise<string>;
}

export interface MetricsSuiteOptions {
  /** Requests of the app's own, made before the first scrape. */
  traffic?: (baseUrl: string) => Promise<void>;
  /** The app's own checks of its metrics, declared inside the suite (the app is started for them). */
  more?: (context: MetricsSuiteContext) => void;
}

/**
 * The e2e checks of every app's /metrics: after some traffic, `promtool check metrics` accepts the scrape without a
 * finding; requests are counted by route template, never by URL; and the app exposes every metric of its own
 * (METRIC_PREFIXES) that the alert rules and the dashboard query.
 */
export function metricsSuite(
  name: keyof typeof METRIC_PREFIXES & string,
  createApp: () => Promise<INestApplication>,
  options: MetricsSuiteOptions = {},
): void {
  describe(`${name} /metrics (e2e over HTTP)`, () => {
    let app: INestApplication;
    const context: MetricsSuiteContext = {
      baseUrl: '',
      scrape: async () => {
        const response = await fetch(`${context.baseUrl}/metrics`);
        expect(response.status).toBe(200);
        return response.text();
      },
    };

    beforeAll(async () => {
      app = await createApp();
      context.baseUrl = await listen(app);
      await fetch(`${context.baseUrl}/health/live`);
      await fetch(`${context.baseUrl}/no/such/route/42`);
      await options.traffic?.(context.baseUrl);
    });
    afterAll(async () => {
      await app.close();
    });

    it('answers in the Prometheus text format, which `promtool check metrics` accepts without a finding', async () => {
      const response = await fetch(`${context.baseUrl}/metrics`);
      expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      const run = await promtool(['check', 'metrics'], await response.text());
      expect(run).toEqual({ code: 0, output: '' });
    });

    it('counts requests by method, route template and status, never by URL', async () => {
      const text = await context.scrape();
      expect(text).toMatch(
        /^http_request_duration_seconds_count\{method="GET",route="\/health\/live",status="200"\} 1$/m,
      );
      expect(text).toMatch(/^http_request_duration_seconds_count\{method="GET",route="unmatched",status="404"\} 1$/m);
      expect(text).not.toContain('/no/such/route');
    });

    it('exposes every metric of its own that the alert rules and the Grafana dashboard query', async () => {
      const exposed = exposedNames(await context.scrape());
      const own = [...METRIC_PREFIXES['*'], ...METRIC_PREFIXES[name]];
      const everyPrefix = Object.values(METRIC_PREFIXES).flat();
      const queried = (await monitoringExpressions()).flatMap(metricNames);
      expect(queried.filter((metric) => !everyPrefix.some((prefix) => metric.startsWith(prefix)))).toEqual([]);
      const missing = queried.filter(
        (metric) => own.some((prefix) => metric.startsWith(prefix)) && !exposed.has(metric),
      );
      expect([...new Set(missing)]).toEqual([]);
    });

    options.more?.(context);
  });
}
