import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { WebhookLogEntity } from '#persistence';
import { Repository } from 'typeorm';
import type { LogOutcome } from './dtos/list-logs.query.js';
import type { LogCursor } from './log-cursor.js';

/**
 * A log row and its place among its delivery's attempts (1 = the first made). The stored `attempt` is the
 * dispatcher's count, which a resend shares with a repeat that was already scheduled (both take the next
 * number); merchants are shown the place, so two entries never read "attempt 3".
 */
export type LoggedAttempt = WebhookLogEntity & { ordinal: number };

export interface LogPage {
  rows: LoggedAttempt[];
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
      .addSelect(
        `(SELECT count(*)::int FROM delivery.webhook_log_for_webhook_config earlier
           WHERE earlier.delivery_id = log.delivery_id AND (earlier.created_at, earlier.id) <= (log.created_at, log.id))`,
        'ordinal',
      )
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

    const { entities, raw } = await query.getRawAndEntities<{ created_at_text: string; ordinal: number }>();
    const rows = entities.map((entity, i) => Object.assign(entity, { ordinal: raw[i].ordinal }));
    if (rows.length <= options.limit) return { rows, next: null };
    const last = options.limit - 1;
    return {
      rows: rows.slice(0, options.limit),
      next: { createdAt: raw[last].created_at_text, id: entities[last].id },
    };
  }

  findOne(webhookId: string, logId: string): Promise<WebhookLogEntity | null> {
    return this.logs.findOneBy({ webhookId, id: logId });
  }

  /** How many attempts of a delivery are logged (index webhook_log (delivery_id, attempt)). */
  countOfDelivery(deliveryId: string): Promise<number> {
    return this.logs.countBy({ deliveryId });
  }
}
