import { Injectable } from '@nestjs/common';
import { WebhookLookup } from '../webhook/webhook.lookup.js';
import type { ListLogsQuery } from './dtos/list-logs.query.js';
import { decodeLogCursor, encodeLogCursor } from './log-cursor.js';
import { WebhookLogException, WebhookLogExceptionCode } from './webhook-log.exception.js';
import { WebhookLogRepository } from './webhook-log.repository.js';
import { toWebhookLogView, type WebhookLogView } from './webhook-log.view.js';

export const DEFAULT_LOG_PAGE_SIZE = 20;

/** Reads a webhook's delivery log (written by the dispatcher). */
@Injectable()
export class WebhookLogService {
  constructor(
    private readonly lookup: WebhookLookup,
    private readonly logs: WebhookLogRepository,
  ) {}

  async list(
    merchantId: string,
    webhookId: string,
    query: ListLogsQuery,
  ): Promise<{ data: WebhookLogView[]; nextCursor: string | null }> {
    await this.lookup.require(merchantId, webhookId);
    const after = query.cursor === undefined ? undefined : decodeLogCursor(query.cursor);
    if (query.cursor !== undefined && !after) {
      throw new WebhookLogException(
        'cursor must be the nextCursor of a previous page.',
        WebhookLogExceptionCode.INVALID_CURSOR,
        [{ field: 'cursor', message: 'must be the nextCursor of a previous page' }],
      );
    }
    const page = await this.logs.page(webhookId, {
      limit: query.limit ?? DEFAULT_LOG_PAGE_SIZE,
      after,
      outcome: query.outcome,
      eventType: query.eventType,
      subject: query.subject,
      referenceId: query.referenceId,
    });
    return { data: page.rows.map(toWebhookLogView), nextCursor: page.next ? encodeLogCursor(page.next) : null };
  }
}
