import { Injectable } from '@nestjs/common';
import { ReadReplica } from '#platform';
import type { DataSource } from 'typeorm';
import { WebhookLookup } from '../webhook/webhook.lookup.js';
import type { ListLogsQuery } from './dtos/list-logs.query.js';
import { decodeLogCursor, encodeLogCursor } from './log-cursor.js';
import { WebhookLogException, WebhookLogExceptionCode } from './webhook-log.exception.js';
import { WebhookLogRepository } from './webhook-log.repository.js';
import { toWebhookLogView, type WebhookLogView } from './webhook-log.view.js';
import { WebhookLogEntity } from './webhook-log.entity.js';

export const DEFAULT_LOG_PAGE_SIZE = 20;

/**
 * Reads a webhook's delivery log (written by the dispatcher). Its pages come from the read replica when there is one
 * and it is up and in time (ReadReplica; the log is only ever appended to by another app, so a page a moment old is
 * a page the merchant could have seen a moment ago); the webhook's ownership check stays on the primary.
 */
@Injectable()
export class WebhookLogService {
  constructor(
    private readonly lookup: WebhookLookup,
    private readonly logs: WebhookLogRepository,
    private readonly replica: ReadReplica<DataSource>,
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
    const options = {
      limit: query.limit ?? DEFAULT_LOG_PAGE_SIZE,
      after,
      outcome: query.outcome,
      eventType: query.eventType,
      subject: query.subject,
      referenceId: query.referenceId,
    };
    const page = await this.replica.read(
      (replica) => new WebhookLogRepository(replica.getRepository(WebhookLogEntity)).page(webhookId, options),
      () => this.logs.page(webhookId, options),
    );
    return { data: page.rows.map(toWebhookLogView), nextCursor: page.next ? encodeLogCursor(page.next) : null };
  }
}
