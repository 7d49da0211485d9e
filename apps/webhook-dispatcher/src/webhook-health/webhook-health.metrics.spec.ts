import { describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { PlatformMetrics } from '#platform';
import { WebhookHealthMetrics } from './webhook-health.metrics.js';
import { FAILING_NOTICE_AFTER_MS } from './webhook-health.monitor.js';

/** The two gauges as a scrape shows them, and the database queries that scrape made. */
async function scrape(query: (sql: string, parameters: unknown[]) => Promise<unknown>) {
  const platform = new PlatformMetrics();
  const db = { query: jest.fn(query) };
  new WebhookHealthMetrics(platform, db as unknown as DataSource);
  const text = await platform.registry.metrics();
  const value = (name: string) => new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1];
  return {
    gauges: { failing: value('webhooks_failing'), lastAttemptFailed: value('webhooks_last_attempt_failed') },
    calls: db.query.mock.calls,
  };
}

describe('WebhookHealthMetrics', () => {
  it('reports both counts from one read per scrape, failing meaning for FAILING_NOTICE_AFTER_MS', async () => {
    const { gauges, calls } = await scrape(async () => [{ lastAttemptFailed: 7, failing: 3 }]);
    expect(gauges).toEqual({ failing: '3', lastAttemptFailed: '7' });
    expect(calls).toHaveLength(1);
    expect(calls[0][1]).toEqual([FAILING_NOTICE_AFTER_MS]);
  });

  it('reports NaN when the database does not answer, without failing the scrape', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      const { gauges } = await scrape(() => Promise.reject(new Error('connection refused')));
      expect(gauges).toEqual({ failing: 'Nan', lastAttemptFailed: 'Nan' }); // prom-client's spelling
      expect(warn).toHaveBeenCalledWith('cannot read the failing webhooks (reported as NaN): connection refused');
    } finally {
      warn.mockRestore();
    }
  });
});
