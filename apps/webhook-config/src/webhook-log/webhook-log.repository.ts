import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { WebhookLogEntity } from '#persistence';
import { Repository } from 'typeorm';
import type { LogOutcome } from './dtos/list-logs.query.js';
import type { LogCursor } from './log-cursor.js';

export interface LogPage {
  rows: WebhookLogEntity[];
  /** Where the next page starts, or null on the last page. */
  next: LogCursor | null;
}

/**
 * The log of one webhook, newest first, by keyset on (created_at, id) — the index
 * webhook_log_webhook_idx (webhook_id, created_at DESC, id DESC) serves every page at the same cost.
 */
@Injectable()
export class WebhookLogRepository {
  constructor(@InjectRepository(WebhookLogEntity) private readonly logs: Repository<WebhookLogEntity>) {}

  async page(webhookId: string, options: { limit: number; after?: LogCursor; outcome?: LogOutcome }): Promise<LogPage> {
    const query = this.logs
      .createQueryBuilder('log')
      .addSelect('log.created_at::text', 'created_at_text')
      .where('log.webhook_id = :webhookId', { webhookId })
      .orderBy('log.created_at', 'DESC')
      .addOrderBy('log.id', 'DESC')
      .limit(options.limit + 1);
    if (options.after) {
      query.andWhere('(log.created_at, log.id) < (CAST(:afterCreatedAt AS timestamptz), CAST(:afterId AS uuid))', {
        afterCreatedAt: options.after.createdAt,
        afterId: options.after.id,
      });
    }
    if (options.outcome === 'success') query.andWhere('log.status BETWEEN 200 AND 299');
    if (options.outcome === 'failure') query.andWhere('NOT (log.status BETWEEN 200 AND 299)');

    const { entities, raw } = await query.getRawAndEntities<{ created_at_text: string }>();
    if (entities.length <= options.limit) return { rows: entities, next: null };
    const last = options.limit - 1;
    return {
      rows: entities.slice(0, options.limit),
      next: { createdAt: raw[last].created_at_text, id: entities[last].id },
    };
  }

  findOne(webhookId: string, logId: string): Promise<WebhookLogEntity | null> {
    return this.logs.findOneBy({ webhookId, id: logId });
  }
}
