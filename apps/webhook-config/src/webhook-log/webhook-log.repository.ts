import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { createdAtRangeOf, logOfDeliveryRange, ROW_TIME_SLACK_MS } from '#domain';
import { type LogOutcome } from '#persistence';
import { Repository, type SelectQueryBuilder } from 'typeorm';
import { cursorTime, type LogCursor } from './log-cursor.js';
import { WebhookLogEntity } from './webhook-log.entity.js';

/** How far back from its start a page looks first (see `page`). */
const PAGE_WINDOW_MS = 2 * 86_400_000;

/**
 * A log row and its place among its delivery's attempts (1 = the first made). The stored `attempt` is the
 * dispatcher's count, which a resend shares with a repeat that was already scheduled (both take the next
 * number); merchants are shown the place, so two entries never read "attempt 3".
 */
export type LoggedAttempt = WebhookLogEntity & { ordinal: number };

export interface PageOptions {
  limit: number;
  after?: LogCursor;
  /** Filters, combined; each served by an index (webhook, value, created_at DESC, id DESC). */
  outcome?: LogOutcome;
  eventType?: string;
  /** The subject's id: `request.uuid`. */
  subject?: string;
  referenceId?: string;
}

export interface LogPage {
  rows: LoggedAttempt[];
  /** Where the next page starts, or null on the last page. */
  next: LogCursor | null;
}

/**
 * The log of one webhook, newest first, by keyset on (created_at, id) — the index
 * webhook_log_webhook_idx (webhook_id, created_at DESC, id DESC) serves every page at the same cost, and a filtered
 * page is served the same way by its filter's index (webhook_id, value, created_at DESC, id DESC).
 *
 * The log is partitioned by day on created_at (the dispatcher drops the days older than WEBHOOK_LOG_RETENTION):
 * every query bounds created_at, so that PostgreSQL reads only the days it needs — a page the days from its cursor
 * back until it is full (none of the days ahead, which hold nothing yet), an entry or a delivery's entries the days
 * their ids allow (libs/domain delivery-time.ts).
 */
@Injectable()
export class WebhookLogRepository {
  constructor(@InjectRepository(WebhookLogEntity) private readonly logs: Repository<WebhookLogEntity>) {}

  async page(webhookId: string, options: PageOptions): Promise<LogPage> {
    // The last two days before the page's start first: PostgreSQL then plans those days' partitions only. Older
    // days are read (all of them planned) only when those did not fill the page.
    const wanted = options.limit + 1;
    const cursorAt = options.after ? cursorTime(options.after) : NaN;
    const upper = Number.isFinite(cursorAt) ? cursorAt : Date.now() + ROW_TIME_SLACK_MS;
    const windowStart = new Date(upper - PAGE_WINDOW_MS);
    const { entities, raw } = await this.pageQuery(webhookId, options, { from: windowStart })
      .limit(wanted)
      .getRawAndEntities<{ created_at_text: string }>();
    if (entities.length < wanted) {
      const older = await this.pageQuery(webhookId, options, { before: windowStart })
        .limit(wanted - entities.length)
        .getRawAndEntities<{ created_at_text: string }>();
      entities.push(...older.entities);
      raw.push(...older.raw);
    }
    const shown = entities.slice(0, options.limit).map((entity, i) => ({ entity, createdAt: raw[i].created_at_text }));
    const ordinals = await this.ordinals(shown);
    const rows = shown.map(({ entity }) => Object.assign(entity, { ordinal: ordinals.get(entity.id) ?? 1 }));
    if (entities.length <= options.limit) return { rows, next: null };
    const last = shown[options.limit - 1];
    return { rows, next: { createdAt: last.createdAt, id: last.entity.id } };
  }

  /**
   * The entries of a page in the days `days` (from an instant on, or before it), newest first (the caller sets the
   * limit): after the cursor, and never after now (the days ahead hold nothing yet).
   */
  pageQuery(
    webhookId: string,
    options: PageOptions,
    days: { from: Date } | { before: Date },
  ): SelectQueryBuilder<WebhookLogEntity> {
    const query = this.logs
      .createQueryBuilder('log')
      .addSelect('log.created_at::text', 'created_at_text')
      .where('log.webhook_id = :webhookId', { webhookId })
      .andWhere('log.created_at <= CAST(:notAfter AS timestamptz)', {
        notAfter: options.after?.createdAt ?? new Date(Date.now() + ROW_TIME_SLACK_MS),
      })
      .orderBy('log.created_at', 'DESC')
      .addOrderBy('log.id', 'DESC');
    if ('from' in days) query.andWhere('log.created_at >= :from', { from: days.from });
    else query.andWhere('log.created_at < :before', { before: days.before });
    if (options.after) {
      query.andWhere('(log.created_at, log.id) < (CAST(:afterCreatedAt AS timestamptz), CAST(:afterId AS uuid))', {
        afterCreatedAt: options.after.createdAt,
        afterId: options.after.id,
      });
    }
    if (options.outcome) query.andWhere('log.outcome = :outcome', { outcome: options.outcome });
    if (options.eventType) query.andWhere('log.event_type = :eventType', { eventType: options.eventType });
    if (options.subject) query.andWhere("log.request->>'uuid' = :subject", { subject: options.subject });
    if (options.referenceId) {
      query.andWhere("log.request->>'referenceId' = :referenceId", { referenceId: options.referenceId });
    }
    return query;
  }

  /**
   * Each entry's place among its delivery's entries: those up to it (by created_at, id), counted through the index
   * (delivery_id, attempt). Bounded to the days from the page's oldest delivery (the time in its id, less the slack:
   * every entry of a delivery is younger) to its newest entry, so that PostgreSQL plans only those partitions.
   */
  private async ordinals(
    entries: Array<{ entity: WebhookLogEntity; createdAt: string }>,
  ): Promise<Map<string, number>> {
    if (entries.length === 0) return new Map();
    const starts = entries.map(({ entity }) => logOfDeliveryRange(entity.deliveryId).from);
    const from = starts.some((start) => start === '-infinity')
      ? '-infinity'
      : new Date(Math.min(...starts.map((start) => (start as Date).getTime())));
    const rows: Array<{ id: string; ordinal: number }> = await this.logs.query(
      `SELECT p.id, (SELECT count(*)::int FROM delivery.webhook_log_for_webhook_config e
                      WHERE e.delivery_id = p.delivery_id AND e.created_at >= $2::timestamptz
                        AND e.created_at <= $3::timestamptz AND e.created_at <= p.created_at
                        AND (e.created_at, e.id) <= (p.created_at, p.id)) AS ordinal
         FROM json_to_recordset($1::json) AS p(id uuid, delivery_id uuid, created_at timestamptz)`,
      [
        JSON.stringify(
          entries.map(({ entity, createdAt }) => ({
            id: entity.id,
            delivery_id: entity.deliveryId,
            created_at: createdAt,
          })),
        ),
        from,
        entries[0].createdAt,
      ],
    );
    return new Map(rows.map((row) => [row.id, row.ordinal]));
  }

  findOne(webhookId: string, logId: string): Promise<WebhookLogEntity | null> {
    const { from, to } = createdAtRangeOf(logId);
    return this.logs
      .createQueryBuilder('log')
      .where('log.id = :logId AND log.webhook_id = :webhookId', { logId, webhookId })
      .andWhere('log.created_at BETWEEN CAST(:from AS timestamptz) AND CAST(:to AS timestamptz)', { from, to })
      .getOne();
  }

  /** How many attempts of a delivery are logged (index webhook_log (delivery_id, attempt)). */
  countOfDelivery(deliveryId: string): Promise<number> {
    const { from, to } = logOfDeliveryRange(deliveryId);
    return this.logs
      .createQueryBuilder('log')
      .where('log.delivery_id = :deliveryId', { deliveryId })
      .andWhere('log.created_at BETWEEN CAST(:from AS timestamptz) AND CAST(:to AS timestamptz)', { from, to })
      .getCount();
  }
}
