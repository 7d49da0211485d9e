import { Injectable } from '@nestjs/common';
import { Gauge } from 'prom-client';
import { PlatformMetrics, ScrapeRead } from '#platform';
import { WebhookRepository } from './webhook.repository.js';
import { WEBHOOK_DISABLED_REASONS } from './webhook.entity.js';

/**
 * Disabled webhooks by reason, read from the database at scrape time: the cluster's values, the same in every
 * webhook-config process (aggregate with max()). Every reason is set at each scrape, 0 when none is disabled for it.
 */
@Injectable()
export class WebhookMetrics {
  private readonly database = new ScrapeRead('the disabled webhooks');

  constructor(platform: PlatformMetrics, webhooks: WebhookRepository) {
    const disabled: Gauge<'reason'> = new Gauge({
      name: 'webhooks_disabled',
      help:
        'Disabled webhooks by reason: manual (by their merchant), failing (by the platform, their attempts all ' +
        'failed for WEBHOOK_DISABLE_AFTER); NaN when the database did not answer. The same in every webhook-config ' +
        'process: aggregate with max()',
      labelNames: ['reason'] as const,
      registers: [platform.registry],
      collect: async () => {
        const counts = await this.database.read(() => webhooks.countDisabled());
        for (const reason of WEBHOOK_DISABLED_REASONS) {
          disabled.set({ reason }, counts ? (counts.find((row) => row.reason === reason)?.count ?? 0) : NaN);
        }
      },
    });
  }
}
