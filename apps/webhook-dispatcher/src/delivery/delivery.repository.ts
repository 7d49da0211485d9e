import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import {
  createdAtRangeOf,
  DELIVERY_EVENT_TIME_WINDOW_MS,
  logOfDeliveryRange,
  ROW_TIME_SLACK_MS,
  uuidV7Time,
} from '#domain';
import type { DeliverySnapshot } from '#messaging';
import { Batcher } from '../common/batcher.js';
import { DatabaseRetry } from '../common/database-retry.js';
import { RecoverRepository } from '../recover/recover.repository.js';
import { WebhookHealthRepository } from '../webhook-health/webhook-health.repository.js';

export interface NewDelivery extends DeliverySnapshot {
  id: string;
  merchantId: string;
  url: string;
  retryOnError: boolean;
}

/** Batch size of the deletion of a deleted webhook's deliveries and log: no statement holds many locks for long. */
const DELETE_BATCH = 10_000;

/** The day-partitioned tables a deleted webhook's rows are deleted from, and each one's key (beside created_at). */
const DAY_TABLES = {
  webhook_delivery: { table: 'webhook_delivery', key: 'id' },
  webhook_log: { table: 'webhook_log', key: 'id' },
  webhook_delivery_outcome: { table: 'webhook_delivery_outcome', key: 'delivery_id' },
} as const;

/**
 * When a delivery of `eventId` is created (its created_at, the table's partition key): the event's own time (in its
 * version-7 id) when that is within DELIVERY_EVENT_TIME_WINDOW_MS of now, so that two fan-outs of one event at once
 * (the broker may hand an event over twice, even to two processes) write the same key (webhook_id, event_id,
 * created_at) and the second meets the first's row; otherwise (an event fanned out late, or with another kind of
 * id) now. An earlier fan-out's row is looked for first besides (see insertEvents).
 */
export function deliveryCreatedAt(eventId: string, now: number): Date {
  const eventTime = uuidV7Time(eventId);
  if (eventTime !== undefined && Math.abs(now - eventTime) <= DELIVERY_EVENT_TIME_WINDOW_MS) return new Date(eventTime);
  return new Date(now);
}

/**
 * webhook_delivery rows: one per (event, webhook), created by the fan-out, and one per test delivery the merchant
 * backend asks for (the dispatcher's commands). Manual attempts (tests, resends) are counted on the row.
 *
 * The table is partitioned by day on created_at (libs/persistence migration DeliveryPartitions): a lookup by id
 * bounds created_at to where that id's row can be (libs/domain delivery-time.ts), so it reads one or two partitions.
 */
@Injectable()
export class DeliveryRepository {
  /**
   * Events fanned out at about the same time share one INSERT (one commit) instead of one each: those of one
   * event-loop turn, and those that came in while two INSERTs were running. No linger: at a steady trickle of events
   * a timer would add its wait to every delivery's latency, and a wake-up to the dispatcher's CPU.
   */
  private readonly inserts = new Batcher<NewDelivery[], Map<string, string>>(
    { maxBatch: 100, lingerMs: 0, concurrency: 2 },
    (events) => this.insertEvents(events),
  );

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly retry: DatabaseRetry,
    private readonly health: WebhookHealthRepository,
    private readonly recovers: RecoverRepository,
  ) {}

  /**
   * Records the deliveries of one event, keeping any that already exist (a redelivered event), and returns
   * the ids of every delivery of this event that has not been attempted yet, keyed by webhook id. A webhook deleted
   * since the cache read it gets no delivery. Waits out database outages (DatabaseRetry).
   */
  createForEvent(deliveries: NewDelivery[]): Promise<Map<string, string>> {
    return this.retry.run(() => this.inserts.submit(deliveries));
  }

  /**
   * Deletes the deliveries of a webhook that no longer exists, their log, its rate schedule and the newest event of
   * each subject delivered to it, and has its health and its recovers deleted by their modules' repositories; nothing
   * while it exists. webhook-config deletes webhooks, but the deliveries and the log
   * are the dispatcher's own. One day partition at a time (each statement reads one), in batches. Returns how many
   * deliveries were deleted. Waits out database outages (DatabaseRetry).
   */
  async deleteOfDeletedWebhook(webhookId: string): Promise<number> {
    // The days that hold any of its rows, in one statement (one index probe per day partition): most calls (every
    // attempt of a deleted webhook's repeats that were waiting) find none.
    const days: Array<{ parent: string; from_time: Date; to_time: Date }> = await this.retry.run(() =>
      this.db.query(
        `SELECT p.parent, p.from_time, p.to_time FROM day_partitions() p
          WHERE CASE p.parent
                  WHEN 'webhook_delivery' THEN EXISTS (
                    SELECT 1 FROM webhook_delivery d
                     WHERE d.webhook_id = $1 AND d.created_at >= p.from_time AND d.created_at < p.to_time)
                  WHEN 'webhook_delivery_outcome' THEN EXISTS (
                    SELECT 1 FROM webhook_delivery_outcome o
                     WHERE o.webhook_id = $1 AND o.created_at >= p.from_time AND o.created_at < p.to_time)
                  ELSE EXISTS (
                    SELECT 1 FROM webhook_log l
                     WHERE l.webhook_id = $1 AND l.created_at >= p.from_time AND l.created_at < p.to_time)
                END
          ORDER BY p.from_time, p.parent`,
        [webhookId],
      ),
    );
    let deleted = 0;
    for (const { parent, from_time, to_time } of days) {
      const { table, key } = DAY_TABLES[parent as keyof typeof DAY_TABLES] ?? DAY_TABLES.webhook_delivery;
      for (;;) {
        const [, count]: [unknown, number] = await this.retry.run(() =>
          this.db.query(
            `DELETE FROM ${table}
              WHERE created_at >= $2 AND created_at < $3
                AND ${key} IN (SELECT ${key} FROM ${table}
                                WHERE webhook_id = $1 AND created_at >= $2 AND created_at < $3 LIMIT $4)
                AND NOT EXISTS (SELECT 1 FROM backend.webhook_for_dispatcher w WHERE w.id = $1)`,
            [webhookId, from_time, to_time, DELETE_BATCH],
          ),
        );
        if (table === 'webhook_delivery') deleted += count;
        if (count < DELETE_BATCH) break;
      }
    }
    // The newest event of each of its subjects delivered (superseded repeats): one row per subject, in batches.
    for (;;) {
      const [, count]: [unknown, number] = await this.retry.run(() =>
        this.db.query(
          `DELETE FROM subject_delivered
            WHERE webhook_id = $1
              AND (event_type, subject_id) IN (SELECT event_type, subject_id FROM subject_delivered
                                                WHERE webhook_id = $1 LIMIT $2)
              AND NOT EXISTS (SELECT 1 FROM backend.webhook_for_dispatcher w WHERE w.id = $1)`,
          [webhookId, DELETE_BATCH],
        ),
      );
      if (count < DELETE_BATCH) break;
    }
    // Its rate schedule (one row) here; its health (one row, and one per hour of the last day) and its recovers by
    // their owners, at the same time.
    await Promise.all([
      this.retry.run(() =>
        this.db.query(
          `DELETE FROM webhook_rate
            WHERE webhook_id = $1 AND NOT EXISTS (SELECT 1 FROM backend.webhook_for_dispatcher w WHERE w.id = $1)`,
          [webhookId],
        ),
      ),
      this.health.deleteOfDeletedWebhook(webhookId),
      this.recovers.deleteOfDeletedWebhook(webhookId),
    ]);
    return deleted;
  }

  /**
   * A webhook deleted since the cache read it gets no delivery: each row looks its webhook up (by primary key, through
   * webhook-config's view), as the foreign key did when both tables were one app's.
   */
  private async insertEvents(events: NewDelivery[][]): Promise<Array<Map<string, string>>> {
    const rows = events.flat();
    // Webhooks of one event mostly share a body (same version and content type): send each distinct body
    // once and let the database copy it into every row, instead of encoding it for every delivery. The other
    // columns travel as one JSON array, which V8 serialises natively (typed parameter arrays are quoted and
    // escaped by the driver element by element).
    const bodies = [...new Set(rows.map((d) => d.body))];
    const indexOf = new Map(bodies.map((body, i) => [body, i + 1]));
    const bodyArray = bodies.map((_, i) => `convert_to($${4 + i}::text, 'UTF8')`).join(', ');
    const now = Date.now();
    const columns = rows.map((d) => ({
      id: d.id,
      webhookId: d.webhookId,
      merchantId: d.merchantId,
      eventId: d.eventId,
      eventType: d.eventType,
      subject: d.subject,
      url: d.url,
      contentType: d.contentType,
      version: d.version,
      retryOnError: d.retryOnError,
      bodyIndex: indexOf.get(d.body)!,
      createdAt: deliveryCreatedAt(d.eventId, now),
      position: d.position,
    }));
    // An earlier fan-out of the event (redelivered after its dispatcher stopped) may have dated its row otherwise
    // (later, or before this rule): it is looked for from its event's time on, less the clock slack — the days of the
    // batch's events, usually today's partition alone; every day for an event whose id holds no time.
    const eventTimes = rows.map((d) => uuidV7Time(d.eventId));
    const from = eventTimes.some((time) => time === undefined)
      ? '-infinity'
      : new Date(Math.min(...(eventTimes as number[]), now) - ROW_TIME_SLACK_MS);
    const inserted: Array<{ id: string; webhook_id: string; event_id: string }> = await this.db.query(
      `INSERT INTO webhook_delivery
         (id, webhook_id, merchant_id, event_id, event_type, subject, url, content_type, version, retry_on_error, body,
          created_at, position)
       SELECT u.id, u."webhookId", u."merchantId", u."eventId", u."eventType", u.subject, u.url, u."contentType",
              u.version, u."retryOnError", (ARRAY[${bodyArray}])[u."bodyIndex"], u."createdAt", u.position
         FROM json_to_recordset($1::json)
              AS u(id uuid, "webhookId" uuid, "merchantId" uuid, "eventId" uuid, "eventType" text, subject jsonb,
                   url text, "contentType" text, version text, "retryOnError" boolean, "bodyIndex" int,
                   "createdAt" timestamptz, position bigint)
        WHERE EXISTS (SELECT 1 FROM backend.webhook_for_dispatcher w WHERE w.id = u."webhookId")
          AND NOT EXISTS (SELECT 1 FROM webhook_delivery d
                           WHERE d.webhook_id = u."webhookId" AND d.event_id = u."eventId"
                             AND d.created_at BETWEEN $2 AND $3)
       ON CONFLICT (webhook_id, event_id, created_at) DO NOTHING
       RETURNING id, webhook_id, event_id`,
      [JSON.stringify(columns), from, new Date(now + ROW_TIME_SLACK_MS), ...bodies],
    );
    const byEvent = new Map<string, Map<string, string>>();
    for (const row of inserted) {
      if (!byEvent.has(row.event_id)) byEvent.set(row.event_id, new Map());
      byEvent.get(row.event_id)!.set(row.webhook_id, row.id);
    }
    return Promise.all(
      events.map(async (deliveries) => {
        const eventId = deliveries[0]?.eventId;
        const ids = (eventId && byEvent.get(eventId)) || new Map<string, string>();
        if (eventId && ids.size < deliveries.length) {
          // This event was fanned out before (the dispatcher stopped before acking it): reuse those ids, and
          // publish again the ones that were never attempted (at-least-once; receivers dedupe on webhook-id).
          // Naming the webhooks lets the lookup use the (webhook_id, event_id, created_at) key, in the days the
          // INSERT looked in; a delivery's log entries are all younger than it (less the clock slack), which bounds
          // the days the check reads.
          const eventTime = uuidV7Time(eventId);
          const existing: Array<{ id: string; webhook_id: string }> = await this.db.query(
            `SELECT d.id, d.webhook_id FROM webhook_delivery d
              WHERE d.webhook_id = ANY($2::uuid[]) AND d.event_id = $1 AND d.created_at BETWEEN $4 AND $5
                AND NOT EXISTS (SELECT 1 FROM webhook_log l
                                 WHERE l.delivery_id = d.id AND l.created_at >= d.created_at - $3 * interval '1 ms')`,
            [
              eventId,
              deliveries.map((delivery) => delivery.webhookId),
              ROW_TIME_SLACK_MS,
              eventTime === undefined ? '-infinity' : new Date(Math.min(eventTime, now) - ROW_TIME_SLACK_MS),
              new Date(now + ROW_TIME_SLACK_MS),
            ],
          );
          for (const row of existing) ids.set(row.webhook_id, row.id);
        }
        return ids;
      }),
    );
  }

  /**
   * Reads a delivery for an attempt whose message carries no snapshot (resends). Its position too (null: none), so a
   * resend that is delivered counts as its subject's event delivered (superseded repeats).
   */
  async findSnapshot(id: string): Promise<DeliverySnapshot | undefined> {
    const { from, to } = createdAtRangeOf(id);
    const rows: Array<Omit<DeliverySnapshot, 'body' | 'position'> & { body: Buffer; position: string | null }> =
      await this.retry.run(() =>
        this.db.query(
          `SELECT webhook_id AS "webhookId", event_id AS "eventId", event_type AS "eventType", subject,
                content_type AS "contentType", version, body, position
           FROM webhook_delivery WHERE id = $1 AND created_at BETWEEN $2 AND $3`,
          [id, from, to],
        ),
      );
    const row = rows[0];
    if (!row) return undefined;
    const { body, position, ...snapshot } = row;
    // bigint comes as text; a snapshot leaves out what it does not know (it may be published again: slow lane, guard).
    return { ...snapshot, body: body.toString('utf8'), ...(position === null ? {} : { position: Number(position) }) };
  }

  /**
   * Records a test delivery, its one manual attempt (number 1) taken: false when a delivery with its id exists already
   * (the same command came again) or its webhook is gone. Its created_at is the time in its id (webhook-config chose
   * a version-7 id when the merchant asked), so a command that comes again meets the row on its key; an id of another
   * kind is looked for first. Waits out database outages (DatabaseRetry).
   */
  async createTest(delivery: NewDelivery): Promise<boolean> {
    const d = delivery;
    const idTime = uuidV7Time(d.id);
    const rows: unknown[] = await this.retry.run(() =>
      this.db.query(
        `INSERT INTO webhook_delivery (id, webhook_id, merchant_id, event_id, event_type, subject, url, content_type,
                                       version, retry_on_error, body, manual_attempts, last_manual_attempt, created_at)
         SELECT $1::uuid, $2::uuid, $3::uuid, $4::uuid, $5, $6::jsonb, $7, $8, $9, $10,
                convert_to($11::text, 'UTF8'), 1, 1, $12::timestamptz
          WHERE EXISTS (SELECT 1 FROM backend.webhook_for_dispatcher w WHERE w.id = $2::uuid)
            ${idTime === undefined ? 'AND NOT EXISTS (SELECT 1 FROM webhook_delivery WHERE id = $1::uuid)' : ''}
         ON CONFLICT (id, created_at) DO NOTHING
         RETURNING id`,
        [
          d.id,
          d.webhookId,
          d.merchantId,
          d.eventId,
          d.eventType,
          JSON.stringify(d.subject),
          d.url,
          d.contentType,
          d.version,
          d.retryOnError,
          d.body,
          new Date(idTime ?? Date.now()),
        ],
      ),
    );
    return rows.length === 1;
  }

  /**
   * Takes the next manual attempt of a delivery of `webhookId`, unless its attempts would exceed `max`: automatic ones
   * logged plus manual ones taken, this one included (rows from before the counter: the manual ones logged). `send`
   * gets the attempt's number — above every number logged and every manual one taken before, so that it is never
   * taken for the redelivery of another attempt. One database transaction: the delivery row is locked first
   * (concurrent resends count one after the other, and the log is read after the lock), and the attempt counts only
   * if `send` succeeds. `gone`: no such delivery of that webhook (deleted with it since, or removed after
   * WEBHOOK_LOG_RETENTION). Waits out database outages.
   */
  takeManualAttempt(
    deliveryId: string,
    webhookId: string,
    max: number,
    send: (attempt: number) => Promise<void>,
  ): Promise<{ attempt: number } | { refused: number } | { gone: true }> {
    return this.retry.run(() =>
      this.db.transaction(async (manager) => {
        const row = createdAtRangeOf(deliveryId);
        const [delivery]: Array<{ manual_attempts: number; last_manual_attempt: number }> = await manager.query(
          `SELECT manual_attempts, last_manual_attempt FROM webhook_delivery
            WHERE id = $1 AND webhook_id = $2 AND created_at BETWEEN $3 AND $4 FOR UPDATE`,
          [deliveryId, webhookId, row.from, row.to],
        );
        if (!delivery) return { gone: true } as const;
        const log = logOfDeliveryRange(deliveryId);
        const [logged]: Array<{ automatic: number; manual: number; top: number }> = await manager.query(
          `SELECT count(*) FILTER (WHERE NOT manual)::int AS automatic, count(*) FILTER (WHERE manual)::int AS manual,
                  coalesce(max(attempt), 0)::int AS top
             FROM webhook_log WHERE delivery_id = $1 AND created_at BETWEEN $2 AND $3`,
          [deliveryId, log.from, log.to],
        );
        const taken = Math.max(delivery.manual_attempts, logged.manual);
        if (logged.automatic + taken >= max) return { refused: logged.automatic + taken };
        const attempt = Math.max(delivery.last_manual_attempt, logged.top) + 1;
        await manager.query(
          `UPDATE webhook_delivery SET manual_attempts = $2, last_manual_attempt = $3
            WHERE id = $1 AND created_at BETWEEN $4 AND $5`,
          [deliveryId, taken + 1, attempt, row.from, row.to],
        );
        // Not a recover's any more (recover_id): a recover leaves it out until this attempt is logged.
        await manager.query(
          `UPDATE webhook_delivery_outcome SET recover_id = NULL
            WHERE delivery_id = $1 AND created_at BETWEEN $2 AND $3 AND recover_id IS NOT NULL`,
          [deliveryId, row.from, row.to],
        );
        await send(attempt);
        return { attempt };
      }),
    );
  }
}
