import { Injectable } from '@nestjs/common';
import { randomUUIDv7 } from 'node:crypto';
import { DataSource, type EntityManager } from 'typeorm';

export type NoticeKind = 'failing' | 'disabled';
/** Why a `disabled` notice's webhook was disabled: its attempts failed for WEBHOOK_DISABLE_AFTER, or it answered 410. */
export type NoticeReason = 'failing' | 'gone';

/** A notice as the backend lists it. */
export interface NoticeRow {
  id: string;
  kind: NoticeKind;
  reason: NoticeReason | null;
  webhookId: string;
  webhookName: string;
  failingSince: Date;
  createdAt: Date;
}

/** An episode a report tells of: the webhook, its merchant, and the first failure (or the 410 answer) of it. */
export interface Episode {
  merchantId: string;
  webhookId: string;
  failingSince: Date;
}

/** How far back the backend lists notices. */
const LISTED_FOR = '30 days';
const LISTED_AT_MOST = 20;

/**
 * The webhook is still in the episode the report tells of: enabled before it began (enabled_at null: since it was
 * created), and no attempt has succeeded since it began (the dispatcher's health, read at handling time).
 */
const IN_EPISODE = `
  (w.enabled_at IS NULL OR w.enabled_at <= $3)
  AND NOT EXISTS (SELECT FROM delivery.webhook_health_for_webhook_config h
                   WHERE h.webhook_id = w.id AND h.last_success_at >= $3)`;

/**
 * Notices about a merchant's webhooks (backend.webhook_notice), one per webhook, kind and failure episode, and their
 * e-mails (backend.notice_email, one per notice and recipient), written together in the report's transaction.
 */
@Injectable()
export class NoticeRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Runs `work` in one transaction: a report's disable, notice and e-mails are all written, or none. */
  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  /**
   * Disables the webhook (reason `failing` or `gone`) if it is enabled and still in the episode; false otherwise (gone,
   * already disabled — its reason stays —, enabled by its merchant after the episode began, or succeeded since).
   */
  async disable(manager: EntityManager, episode: Episode, reason: NoticeReason): Promise<boolean> {
    // TypeORM answers an UPDATE with [rows, affected].
    const [, affected]: [unknown, number] = await manager.query(
      `UPDATE webhook w SET enabled = false, disabled_reason = $4, updated_at = now()
        WHERE w.id = $1 AND w.merchant_id = $2 AND w.enabled AND ${IN_EPISODE}`,
      [episode.webhookId, episode.merchantId, episode.failingSince, reason],
    );
    return affected > 0;
  }

  /**
   * Records a notice of `kind` for the episode — `failing` only while the webhook is enabled and still in the episode,
   * `disabled` only for the webhook the caller has just disabled for `reason` — and, with `email`, one e-mail to send
   * per backend user of the merchant. Once per webhook, kind and episode: true when this call recorded it.
   */
  async record(
    manager: EntityManager,
    kind: NoticeKind,
    reason: NoticeReason | null,
    episode: Episode,
    email: boolean,
  ): Promise<boolean> {
    const condition = kind === 'failing' ? `w.enabled AND ${IN_EPISODE}` : `NOT w.enabled AND w.disabled_reason = $6`;
    const [row]: Array<{ added: number }> = await manager.query(
      `WITH hook AS (SELECT w.id FROM webhook w WHERE w.id = $1 AND w.merchant_id = $2 AND ${condition}),
       added AS (
         INSERT INTO webhook_notice (id, merchant_id, webhook_id, kind, reason, failing_since)
         SELECT $4, $2, id, $5, $6, $3 FROM hook
         ON CONFLICT (webhook_id, kind, failing_since) DO NOTHING
         RETURNING id),
       mails AS (
         INSERT INTO notice_email (id, notice_id, recipient)
         SELECT gen_random_uuid(), added.id, u.email FROM added CROSS JOIN backend_user u
          WHERE u.merchant_id = $2 AND $7
         RETURNING 1)
       SELECT (SELECT count(*) FROM added)::int AS added, (SELECT count(*) FROM mails)::int AS mails`,
      [episode.webhookId, episode.merchantId, episode.failingSince, randomUUIDv7(), kind, reason, email],
    );
    return row.added > 0;
  }

  /** The merchant's notices of the last 30 days, newest first (index (merchant_id, created_at DESC, id DESC)). */
  recent(merchantId: string): Promise<NoticeRow[]> {
    return this.dataSource.query(
      `SELECT n.id, n.kind, n.reason, n.webhook_id AS "webhookId", w.name AS "webhookName",
              n.failing_since AS "failingSince", n.created_at AS "createdAt"
         FROM webhook_notice n JOIN webhook w ON w.id = n.webhook_id
        WHERE n.merchant_id = $1 AND n.created_at > now() - interval '${LISTED_FOR}'
        ORDER BY n.created_at DESC, n.id DESC
        LIMIT ${LISTED_AT_MOST}`,
      [merchantId],
    );
  }
}
