import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { NoticeKind, NoticeReason } from './notice.repository.js';

/** An e-mail of the outbox, claimed to be sent now, with what it tells. */
export interface ClaimedEmail {
  id: string;
  recipient: string;
  /** Tries so far, this one included. */
  attempts: number;
  kind: NoticeKind;
  reason: NoticeReason | null;
  webhookName: string;
  failingSince: Date;
}

/**
 * The e-mail outbox of notices (backend.notice_email): rows are written with their notice (NoticeRepository), claimed
 * here for a while (a lease), and marked sent or given a later try. A claim whose sender died runs out and the row is
 * claimed again.
 */
@Injectable()
export class NoticeEmailRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Claims up to `limit` e-mails due now (oldest first) for `leaseMs`: no other sender claims them meanwhile (SKIP
   * LOCKED: concurrent senders take different rows), and when the lease runs out unsent they are due again.
   */
  claim(limit: number, leaseMs: number): Promise<ClaimedEmail[]> {
    return this.dataSource.query(
      `WITH due AS (
         SELECT id FROM notice_email
          WHERE state = 'pending' AND next_attempt_at <= now() AND (claimed_until IS NULL OR claimed_until <= now())
          ORDER BY next_attempt_at
          LIMIT $1
          FOR UPDATE SKIP LOCKED),
       claimed AS (
         UPDATE notice_email e SET claimed_until = now() + $2::float8 * interval '1 millisecond', attempts = attempts + 1
           FROM due WHERE e.id = due.id
         RETURNING e.id, e.recipient, e.attempts, e.notice_id)
       SELECT c.id, c.recipient, c.attempts, n.kind, n.reason, w.name AS "webhookName", n.failing_since AS "failingSince"
         FROM claimed c JOIN webhook_notice n ON n.id = c.notice_id JOIN webhook w ON w.id = n.webhook_id`,
      [limit, leaseMs],
    );
  }

  /** Sent: never sent again. */
  async sent(id: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE notice_email SET state = 'sent', sent_at = now(), claimed_until = NULL, last_error = NULL WHERE id = $1`,
      [id],
    );
  }

  /** Not sent: tried again in `retryInMs`, with why it failed (no address or content of the e-mail in it). */
  async failed(id: string, error: string, retryInMs: number): Promise<void> {
    await this.dataSource.query(
      `UPDATE notice_email
          SET claimed_until = NULL, last_error = $2, next_attempt_at = now() + $3::float8 * interval '1 millisecond'
        WHERE id = $1 AND state = 'pending'`,
      [id, error.slice(0, 500), retryInMs],
    );
  }
}
