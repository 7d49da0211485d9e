import { Module } from '@nestjs/common';
import { CommonModule } from '../common/common.module.js';
import { WebhookCache } from './webhook.cache.js';
import { WebhookRepository } from './webhook.repository.js';

/**
 * The webhooks as the dispatcher reads them (webhook-config's view `backend.webhook_for_dispatcher` and their
 * secrets): the repository, and the cache every attempt and fan-out reads (kept up to date by WebhookChangesModule).
 */
@Module({
  imports: [CommonModule],
  providers: [WebhookRepository, WebhookCache],
  exports: [WebhookRepository, WebhookCache],
})
export class WebhookModule {}
