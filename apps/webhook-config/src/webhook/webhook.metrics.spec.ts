import { describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { PlatformMetrics } from '#platform';
import { WebhookMetrics } from './webhook.metrics.js';
import type { WebhookRepository } from './webhook.repository.js';

/** webhooks_disabled as a scrape shows it, with the counts the repository gives. */
async function scrape(countDisabled: WebhookRepository['countDisabled']): Promise<string[]> {
  const platform = new PlatformMetrics();
  new WebhookMetrics(platform, { countDisabled } as WebhookRepository);
  return (await platform.registry.metrics()).split('\n').filter((line) => line.startsWith('webhooks_disabled{'));
}

describe('WebhookMetrics', () => {
  it('sets every reason at each scrape, 0 for a reason no webhook is disabled for', async () => {
    expect(await scrape(async () => [{ reason: 'failing', count: 4 }])).toEqual([
      'webhooks_disabled{reason="manual"} 0',
      'webhooks_disabled{reason="failing"} 4',
      'webhooks_disabled{reason="gone"} 0',
    ]);
  });

  it('reports NaN for every reason when the database does not answer, without failing the scrape', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      // prom-client's spelling of NaN.
      expect(await scrape(() => Promise.reject(new Error('connection refused')))).toEqual([
        'webhooks_disabled{reason="manual"} Nan',
        'webhooks_disabled{reason="failing"} Nan',
        'webhooks_disabled{reason="gone"} Nan',
      ]);
      expect(warn).toHaveBeenCalledWith('cannot read the disabled webhooks (reported as NaN): connection refused');
    } finally {
      warn.mockRestore();
    }
  });
});
