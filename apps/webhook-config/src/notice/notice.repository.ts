import { Injectable } from '@nestjs/common';
import { randomUUIDv7 } from 'node:crypto';
import { DataSource } from 'typeorm';

export type NoticeKind = 'failing' | 'disabled';

/** A notice as the backend lists it. */
export interface NoticeRow {
  id: string;
  kind: NoticeKind;
  webhookId: string;
  webhookName: string;
  failingSince: Date;
  createdAt: Date;
  emailedAt: Date | null;
}

/** How far back the backend lists notices. */
const LISTED_FOR = '30 days';
const LISTED_AT_MOST = 20;

/** Notices about a merchant's webhooks (backend.webhook_notice), one per webhook, kind and failure episode. */
@Injectable()
export class NoticeRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Records a notice of `kind` for the webhook's episode, if the webhook still exists and is in the state the
   * notice tells of (failing: enabled; disabled: disabled because failing). Returns it (new or recorded before) with
   * whether it still needs its e-mail, or undefined when there is nothing to tell.
   */
  async record(
    kind: NoticeKind,
    merchantId: string,
    webhookId: string,
    failingSince: Date,
  ): Promise<NoticeRow | undefined> {
    const rows: NoticeRow[] = await this.dataSource.query(
      `WITH hook AS (
         SELECT id, name FROM webhook
          WHERE id = $2 AND merchant_id = $3
            AND CASE $4 WHEN 'failing' THEN enabled ELSE NOT enabled AND disabled_reason = 'failing' END),
       added AS (
         INSERT INTO webhook_notice (id, merchant_id, webhook_id, kind, failing_since)
         SELECT $1, $3, id, $4, $5 FROM hook
         ON CONFLICT (webhook_id, kind, failing_since) DO NOTHING
         RETURNING *)
       SELECT n.id, n.kind, n.webhook_id AS "webhookId", hook.name AS "webhookName",
              n.failing_since AS "failingSince", n.created_at AS "createdAt", n.emailed_at AS "emailedAt"
         FROM (SELECT * FROM added
               UNION ALL
               SELECT * FROM webhook_notice
                WHERE webhook_id = $2 AND kind = $4 AND failing_since = $5) n
         JOIN hook ON hook.id = n.webhook_id
        LIMIT 1`,
      [randomUUIDv7(), webhookId, merchantId, kind, failingSince],
    );
    return rows[0];
  }

  /**
   * Takes the notice's e-mail on: true for exactly one caller while none has (two reports of one episode handled at
   * once e-mail once). {@link releaseEmail} gives it back when the e-mail could not be sent.
   */
  async claimEmail(id: string): Promise<boolean> {
    const [, count]: [unknown, number] = await this.dataSource.query(
      `UPDATE webhook_notice SET emailed_at = now() WHERE id = $1 AND emailed_at IS NULL`,
      [id],
    );
    return count === 1;
  }

  releaseEmail(id: string): Promise<unknown> {
    return this.dataSource.query(`UPDATE webhook_notice SET emailed_at = NULL WHERE id = $1`, [id]);
  }

  /** The merchant's notices of the last 30 days, newest first (index (merchant_id, created_at DESC, id DESC)). */
  recent(merchantId: string): Promise<NoticeRow[]> {
    return this.dataSource.query(
      `SELECT n.id, n.kind, n.webhook_id AS "webhookId", w.name AS "webhookName", n.failing_since AS "failingSince",
              n.created_at AS "createdAt", n.emailed_at AS "emailedAt"
         FROM webhook_notice n JOIN webhook w ON w.id = n.webhook_id
        WHERE n.merchant_id = $1 AND n.created_at > now() - interval '${LISTED_FOR}'
        ORDER BY n.created_at DESC, n.id DESC
        LIMIT ${LISTED_AT_MOST}`,
      [merchantId],
    );
  }

  /** The e-mail addresses of the merchant's backend users. */
  async recipients(merchantId: string): Promise<string[]> {
    const rows: Array<{ email: string }> = await this.dataSource.query(
      `SELECT email FROM backend_user WHERE merchant_id = $1 ORDER BY email`,
      [merchantId],
    );
    return rows.map((row) => row.email);
  }
}
