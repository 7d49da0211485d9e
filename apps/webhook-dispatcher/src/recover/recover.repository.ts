import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { MAX_ATTEMPTS_PER_DELIVERY, ROW_TIME_SLACK_MS } from '#domain';
import type { DeliverySnapshot } from '#messaging';
import { DatabaseRetry } from '../common/database-retry.js';

export type RecoverState = 'running' | 'finished' | 'cancelled';

/** A recover as its job works on it (delivery.webhook_recover, its sent count beside it). */
export interface RecoverRow {
  id: string;
  webhookId: string;
  merchantId: string;
  since: Date;
  state: RecoverState;
  total: number;
  queued: number;
  sent: number;
  /** When its sent count last moved (or it started). */
  progressAt: Date;
  /** Its place; `createdAt` as PostgreSQL's text, to the microsecond (a Date's milliseconds would move it back). */
  cursor: { createdAt: string; id: string } | null;
  queuedAll: boolean;
  /** The process that held its lease before this claim (null: none did; it starts here). */
  previousOwner: string | null;
}

/** A manual attempt taken for a recover: the delivery, the attempt's number, and what the attempt sends. */
export interface TakenAttempt {
  deliveryId: string;
  attempt: number;
  /** The delivery as an attempt needs it (none: the attempt reads the row). */
  snapshot?: DeliverySnapshot;
}

const ROW = `r.id, r.webhook_id AS "webhookId", r.merchant_id AS "merchantId", r.since, r.state, r.total, r.queued,
             coalesce(s.sent, 0) AS sent, coalesce(s.at, r.started_at) AS "progressAt",
             r.cursor_created_at::text AS "cursorCreatedAt", r.cursor_id AS "cursorId", r.queued_all AS "queuedAll"`;

type RawRow = Omit<RecoverRow, 'cursor' | 'previousOwner'> & {
  cursorCreatedAt: string | null;
  cursorId: string | null;
  previousOwner?: string | null;
};

const toRow = (raw: RawRow): RecoverRow => {
  const { cursorCreatedAt, cursorId, previousOwner, ...row } = raw;
  return {
    ...row,
    cursor: cursorCreatedAt && cursorId ? { createdAt: cursorCreatedAt, id: cursorId } : null,
    previousOwner: previousOwner ?? null,
  };
};

/**
 * Recovers (delivery.webhook_recover): started and cancelled on webhook-config's commands, worked on by one
 * dispatcher process at a time (a lease), which takes the next recoverable deliveries in (created_at, id) order in
 * batches: one statement numbers their manual attempts, marks them as this recover's and moves its place on.
 * Recoverable deliveries are found through the partial index on `webhook_delivery_outcome.recoverable` (kept by the
 * log writer), so neither the count nor a batch reads the log: the outcome row also keeps the delivery's attempt
 * numbers (automatic, any, manual) that a batch needs. A batch's mark (`recover_id`) is written there too, a narrow
 * row, so that a recovered delivery rewrites its wide row once (its manual attempt's number).
 */
@Injectable()
export class RecoverRepository {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly retry: DatabaseRetry,
  ) {}

  /**
   * Starts recover `id` of an enabled webhook of `merchantId`, counting what it will send. `started`: it runs now
   * (also when it already did: the command came twice); `refused`: another recover of the webhook runs, or the webhook
   * is disabled or gone.
   */
  async start(command: {
    id: string;
    webhookId: string;
    merchantId: string;
    since: Date;
    /** As counted for the merchant's answer; counted here when missing. */
    total?: number;
  }): Promise<'started' | 'refused'> {
    const rows: Array<{ id: string }> = await this.retry.run(() =>
      this.db.query(
        `INSERT INTO webhook_recover (id, webhook_id, merchant_id, since, state, total, started_at)
         SELECT $1, $2, $3, $4, 'running',
                coalesce($5::int, (SELECT count(*) FROM webhook_delivery_outcome o
                                    WHERE o.webhook_id = $2 AND o.recoverable AND o.created_at >= $4)),
                clock_timestamp()
          WHERE EXISTS (SELECT 1 FROM backend.webhook_for_dispatcher w
                         WHERE w.id = $2 AND w.merchant_id = $3 AND w.enabled)
         ON CONFLICT DO NOTHING
         RETURNING id`,
        [command.id, command.webhookId, command.merchantId, command.since, command.total ?? null],
      ),
    );
    if (rows.length === 1) return 'started';
    const [existing]: Array<{ state: RecoverState }> = await this.retry.run(() =>
      this.db.query(`SELECT state FROM webhook_recover WHERE id = $1`, [command.id]),
    );
    return existing ? 'started' : 'refused';
  }

  /** Cancels the webhook's running recover (only `id`, when given); the ids cancelled. */
  async cancel(webhookId: string, id: string | null, reason: 'requested' | 'disabled'): Promise<string[]> {
    const [rows]: [Array<{ id: string }>, number] = await this.retry.run(() =>
      this.db.query(
        `UPDATE webhook_recover SET state = 'cancelled', cancel_reason = $3, finished_at = clock_timestamp(),
                lease_owner = NULL, lease_until = NULL
          WHERE webhook_id = $1 AND state = 'running' AND ($2::uuid IS NULL OR id = $2)
          RETURNING id`,
        [webhookId, id, reason],
      ),
    );
    return rows.map((row) => row.id);
  }

  /** The recover's state (undefined: no such recover, e.g. deleted with its webhook). */
  async stateOf(id: string): Promise<RecoverState | undefined> {
    const rows: Array<{ state: RecoverState }> = await this.retry.run(() =>
      this.db.query(`SELECT state FROM webhook_recover WHERE id = $1`, [id]),
    );
    return rows[0]?.state;
  }

  /** Takes the lease of a running recover nobody holds (or whose holder stopped renewing it). */
  async claim(owner: string, leaseMs: number): Promise<RecoverRow | undefined> {
    const rows: RawRow[] = await this.retry.run(() =>
      this.db.query(
        `WITH free AS (
           SELECT id, lease_owner FROM webhook_recover
            WHERE state = 'running' AND (lease_until IS NULL OR lease_until < clock_timestamp())
            ORDER BY started_at LIMIT 1 FOR UPDATE SKIP LOCKED),
         claimed AS (
           UPDATE webhook_recover r SET lease_owner = $1, lease_until = clock_timestamp() + $2 * interval '1 ms'
             FROM free WHERE r.id = free.id
           RETURNING r.*, free.lease_owner AS previous_owner)
         SELECT ${ROW}, r.previous_owner AS "previousOwner"
           FROM claimed r LEFT JOIN webhook_recover_sent s ON s.recover_id = r.id`,
        [owner, leaseMs],
      ),
    );
    return rows[0] && toRow(rows[0]);
  }

  /** Renews the lease and reads the recover; undefined when it is no longer running or no longer ours. */
  async renew(id: string, owner: string, leaseMs: number): Promise<RecoverRow | undefined> {
    const rows: RawRow[] = await this.retry.run(() =>
      this.db.query(
        `WITH renewed AS (
           UPDATE webhook_recover SET lease_until = clock_timestamp() + $3 * interval '1 ms'
            WHERE id = $1 AND lease_owner = $2 AND state = 'running'
           RETURNING *)
         SELECT ${ROW} FROM renewed r LEFT JOIN webhook_recover_sent s ON s.recover_id = r.id`,
        [id, owner, leaseMs],
      ),
    );
    return rows[0] && toRow(rows[0]);
  }

  /** Gives the lease up (the process stops): another process may claim the recover at once. */
  async release(id: string, owner: string): Promise<void> {
    await this.db.query(
      `UPDATE webhook_recover SET lease_owner = NULL, lease_until = NULL WHERE id = $1 AND lease_owner = $2`,
      [id, owner],
    );
  }

  /**
   * Takes the next `limit` recoverable deliveries after the recover's place, in one transaction: each gets its next
   * manual attempt (numbered above every attempt logged and taken, as a resend's), unless its attempts reached
   * MAX_ATTEMPTS_PER_DELIVERY or a resend of it is on its way (taken, not logged yet: by a resend, or by this recover —
   * `unsent` queues those again, never a batch), all read from the outcome rows; the recover's place moves past
   * every delivery read, and `queued_all` is set once none is left. Returns the attempts taken, or undefined when the
   * recover is no longer running or no longer ours (nothing was taken then).
   */
  async takeBatch(
    recover: RecoverRow,
    owner: string,
    limit: number,
  ): Promise<{ taken: TakenAttempt[]; read: number } | undefined> {
    return this.retry.run(() =>
      this.db.transaction(async (manager) => {
        const [job]: unknown[] = await manager.query(
          `SELECT 1 FROM webhook_recover WHERE id = $1 AND state = 'running' AND lease_owner = $2 FOR NO KEY UPDATE`,
          [recover.id, owner],
        );
        if (!job) return undefined;
        const rows: Array<TakenRow> = await manager.query(
          `WITH next AS MATERIALIZED (
             SELECT o.delivery_id AS id, o.created_at, o.recover_id, o.automatic_top, o.top_attempt, o.manual_top
               FROM webhook_delivery_outcome o
              WHERE o.webhook_id = $1 AND o.recoverable AND o.created_at >= $2
                AND ($3::timestamptz IS NULL OR (o.created_at, o.delivery_id) > ($3::timestamptz, $4::uuid))
              ORDER BY o.created_at, o.delivery_id
              LIMIT $5),
           taken AS (
             UPDATE webhook_delivery d
                SET manual_attempts = d.manual_attempts + 1,
                    last_manual_attempt = greatest(d.last_manual_attempt, n.top_attempt) + 1
               FROM next n
              WHERE d.id = n.id AND d.created_at = n.created_at AND d.webhook_id = $1 AND d.created_at >= $2
                AND n.automatic_top + d.manual_attempts < $7
                AND (d.last_manual_attempt = 0 OR n.recover_id <> $6 OR n.manual_top >= d.last_manual_attempt)
             RETURNING d.id, d.created_at, d.last_manual_attempt AS attempt, d.webhook_id, d.event_id, d.event_type,
                       d.subject, d.content_type, d.version, convert_from(d.body, 'UTF8') AS body, d.position),
           marked AS (
             UPDATE webhook_delivery_outcome o SET recover_id = $6
               FROM taken t
              WHERE o.delivery_id = t.id AND o.created_at = t.created_at AND o.webhook_id = $1 AND o.created_at >= $2
             RETURNING 1)
           SELECT n.id, n.created_at::text AS cursor_at, t.attempt, t.webhook_id, t.event_id, t.event_type, t.subject,
                  t.content_type, t.version, t.body, t.position
             FROM next n LEFT JOIN taken t USING (id)
            ORDER BY n.created_at, n.id`,
          [
            recover.webhookId,
            recover.since,
            recover.cursor?.createdAt ?? null,
            recover.cursor?.id ?? null,
            limit,
            recover.id,
            MAX_ATTEMPTS_PER_DELIVERY,
          ],
        );
        const taken = rows.flatMap((row) =>
          row.attempt === null ? [] : [{ deliveryId: row.id, attempt: row.attempt, snapshot: snapshotOf(row) }],
        );
        const last = rows[rows.length - 1];
        await manager.query(
          `UPDATE webhook_recover SET queued = queued + $2, queued_all = $3,
                  cursor_created_at = coalesce($4, cursor_created_at), cursor_id = coalesce($5, cursor_id)
            WHERE id = $1`,
          [recover.id, taken.length, rows.length < limit, last?.cursor_at ?? null, last?.id ?? null],
        );
        if (last) recover.cursor = { createdAt: last.cursor_at, id: last.id };
        recover.queued += taken.length;
        recover.queuedAll = rows.length < limit;
        return { taken, read: rows.length };
      }),
    );
  }

  /**
   * This recover's attempts taken and not logged, up to its place: after a process stopped with them taken (their
   * messages may or may not have been queued) or when its sent count stopped moving. Sets its queued count to what
   * was sent plus these, read in one statement (one snapshot): an attempt logged meanwhile is in neither, or in both.
   */
  async unsent(recover: RecoverRow): Promise<TakenAttempt[]> {
    const cursor = recover.cursor;
    if (!cursor) return [];
    const rows: Array<{ id: string; attempt: number; queued: number }> = await this.retry.run(() =>
      this.db.query(
        `WITH marked AS MATERIALIZED (
           SELECT o.delivery_id, o.created_at FROM webhook_delivery_outcome o
            WHERE o.recover_id = $3 AND o.webhook_id = $1 AND o.recoverable AND o.created_at >= $2
              AND (o.created_at, o.delivery_id) <= ($4::timestamptz, $5::uuid)),
         unsent AS (
           SELECT d.id, d.last_manual_attempt AS attempt FROM marked m,
             LATERAL (SELECT d.id, d.created_at, d.last_manual_attempt FROM webhook_delivery d
                       WHERE d.id = m.delivery_id AND d.created_at = m.created_at) d
            WHERE NOT EXISTS (SELECT 1 FROM webhook_log l
                               WHERE l.delivery_id = d.id AND l.manual AND l.attempt = d.last_manual_attempt
                                 AND l.created_at >= d.created_at - $6 * interval '1 ms')),
         counted AS (
           UPDATE webhook_recover r
              SET queued = coalesce((SELECT sent FROM webhook_recover_sent WHERE recover_id = r.id), 0)
                           + (SELECT count(*) FROM unsent)
            WHERE r.id = $3
           RETURNING r.queued)
         SELECT u.id, u.attempt, c.queued FROM counted c LEFT JOIN unsent u ON true`,
        [recover.webhookId, recover.since, recover.id, cursor.createdAt, cursor.id, ROW_TIME_SLACK_MS],
      ),
    );
    if (rows[0]) recover.queued = rows[0].queued;
    return rows.flatMap((row) => (row.id === null ? [] : [{ deliveryId: row.id, attempt: row.attempt }]));
  }

  /**
   * Adds to recovers' sent counts the attempts of theirs a batch of log entries inserted (a JSON array of
   * `{recover_id, sent}`, built by the log writer's statement), in the transaction that inserted them (`manager`), so
   * a batch written again counts nothing twice. In recover order, the same in every process. The count is a row of
   * its own (webhook_recover_sent), so neither the log writer nor the recover's job waits for the other's lock.
   */
  async addSent(manager: EntityManager, sent: string): Promise<void> {
    await manager.query(
      `INSERT INTO webhook_recover_sent AS s (recover_id, sent, at)
       SELECT recover_id, sent, clock_timestamp() FROM json_to_recordset($1::json) AS r(recover_id uuid, sent bigint)
        ORDER BY 1
       ON CONFLICT (recover_id) DO UPDATE SET sent = s.sent + excluded.sent, at = excluded.at`,
      [sent],
    );
  }

  /**
   * Deletes the recovers of a webhook that no longer exists, and their sent counts; nothing while it exists. Part of
   * DeliveryRepository.deleteOfDeletedWebhook. Waits out database outages (DatabaseRetry).
   */
  async deleteOfDeletedWebhook(webhookId: string): Promise<void> {
    await this.retry.run(() =>
      this.db.query(
        `WITH gone AS (SELECT $1::uuid AS id WHERE NOT EXISTS (SELECT 1 FROM backend.webhook_for_dispatcher w WHERE w.id = $1)),
              j AS (DELETE FROM webhook_recover WHERE webhook_id IN (SELECT id FROM gone) RETURNING id)
         DELETE FROM webhook_recover_sent WHERE recover_id IN (SELECT id FROM j)`,
        [webhookId],
      ),
    );
  }

  /** Marks the recover finished (every delivery it queued was attempted, or is given up on). */
  async finish(id: string, owner: string): Promise<boolean> {
    const [rows]: [unknown[], number] = await this.retry.run(() =>
      this.db.query(
        `UPDATE webhook_recover SET state = 'finished', finished_at = clock_timestamp(), lease_owner = NULL,
                lease_until = NULL
          WHERE id = $1 AND lease_owner = $2 AND state = 'running'
          RETURNING id`,
        [id, owner],
      ),
    );
    return rows.length === 1;
  }
}

/** A delivery a batch read, and, when it took its attempt, the delivery's columns an attempt sends. */
interface TakenRow {
  id: string;
  /** Its created_at as PostgreSQL's text, to the microsecond: the recover's place. */
  cursor_at: string;
  attempt: number | null;
  webhook_id: string;
  event_id: string;
  event_type: DeliverySnapshot['eventType'];
  subject: DeliverySnapshot['subject'];
  content_type: DeliverySnapshot['contentType'];
  version: string;
  body: string;
  /** bigint, as text; null: none. */
  position: string | null;
}

/** The snapshot an attempt of the row sends (as DeliveryRepository.findSnapshot reads it): no read per attempt. */
const snapshotOf = (row: TakenRow): DeliverySnapshot => ({
  webhookId: row.webhook_id,
  eventId: row.event_id,
  eventType: row.event_type,
  subject: row.subject,
  contentType: row.content_type,
  version: row.version,
  body: row.body,
  ...(row.position === null ? {} : { position: Number(row.position) }),
});
