import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { DeliverySnapshot } from '#messaging';
import { Batcher } from '../common/batcher.js';
import { DatabaseRetry } from '../common/database-retry.js';

export interface NewDelivery extends DeliverySnapshot {
  id: string;
  merchantId: string;
  url: string;
  retryOnError: boolean;
}

/** Batch size of the deletion of a deleted webhook's deliveries: no statement holds many locks for long. */
const DELETE_BATCH = 10_000;

/**
 * webhook_delivery rows: one per (event, webhook), created by the fan-out, and one per test delivery the merchant
 * backend asks for (the dispatcher's commands). Manual attempts (tests, resends) are counted on the row.
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
   * Deletes the deliveries of a webhook that no longer exists, and their log with them (ON DELETE CASCADE); nothing
   * while it exists. webhook-config deletes webhooks, but the deliveries and the log are the dispatcher's own.
   * Returns how many deliveries were deleted. Waits out database outages (DatabaseRetry).
   */
  async deleteOfDeletedWebhook(webhookId: string): Promise<number> {
    let deleted = 0;
    for (;;) {
      const [, count]: [unknown, number] = await this.retry.run(() =>
        this.db.query(
          `DELETE FROM webhook_delivery
            WHERE id IN (SELECT id FROM webhook_delivery WHERE webhook_id = $1 LIMIT $2)
              AND NOT EXISTS (SELECT 1 FROM backend.webhook_for_dispatcher w WHERE w.id = $1)`,
          [webhookId, DELETE_BATCH],
        ),
      );
      deleted += count;
      if (count < DELETE_BATCH) return deleted;
    }
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
    const bodyArray = bodies.map((_, i) => `convert_to($${2 + i}::text, 'UTF8')`).join(', ');
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
    }));
    const inserted: Array<{ id: string; webhook_id: string; event_id: string }> = await this.db.query(
      `INSERT INTO webhook_delivery
         (id, webhook_id, merchant_id, event_id, event_type, subject, url, content_type, version, retry_on_error, body)
       SELECT u.id, u."webhookId", u."merchantId", u."eventId", u."eventType", u.subject, u.url, u."contentType",
              u.version, u."retryOnError", (ARRAY[${bodyArray}])[u."bodyIndex"]
         FROM json_to_recordset($1::json)
              AS u(id uuid, "webhookId" uuid, "merchantId" uuid, "eventId" uuid, "eventType" text, subject jsonb,
                   url text, "contentType" text, version text, "retryOnError" boolean, "bodyIndex" int)
        WHERE EXISTS (SELECT 1 FROM backend.webhook_for_dispatcher w WHERE w.id = u."webhookId")
       ON CONFLICT (webhook_id, event_id) DO NOTHING
       RETURNING id, webhook_id, event_id`,
      [JSON.stringify(columns), ...bodies],
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
          // Naming the webhooks lets the lookup use the (webhook_id, event_id) key.
          const existing: Array<{ id: string; webhook_id: string }> = await this.db.query(
            `SELECT d.id, d.webhook_id FROM webhook_delivery d
              WHERE d.webhook_id = ANY($2::uuid[]) AND d.event_id = $1
                AND NOT EXISTS (SELECT 1 FROM webhook_log l WHERE l.delivery_id = d.id)`,
            [eventId, deliveries.map((delivery) => delivery.webhookId)],
          );
          for (const row of existing) ids.set(row.webhook_id, row.id);
        }
        return ids;
      }),
    );
  }

  /** Reads a delivery for an attempt whose message carries no snapshot (resends). */
  async findSnapshot(id: string): Promise<DeliverySnapshot | undefined> {
    const rows: Array<DeliverySnapshot & { body: Buffer }> = await this.retry.run(() =>
      this.db.query(
        `SELECT webhook_id AS "webhookId", event_id AS "eventId", event_type AS "eventType", subject,
              content_type AS "contentType", version, body
         FROM webhook_delivery WHERE id = $1`,
        [id],
      ),
    );
    const row = rows[0];
    return row && { ...row, body: row.body.toString('utf8') };
  }

  /**
   * Records a test delivery, its one manual attempt (number 1) taken: false when a delivery with its id exists already
   * (the same command came again) or its webhook is gone. Waits out database outages (DatabaseRetry).
   */
  async createTest(delivery: NewDelivery): Promise<boolean> {
    const d = delivery;
    const rows: unknown[] = await this.retry.run(() =>
      this.db.query(
        `INSERT INTO webhook_delivery (id, webhook_id, merchant_id, event_id, event_type, subject, url, content_type,
                                       version, retry_on_error, body, manual_attempts, last_manual_attempt)
         SELECT $1::uuid, $2::uuid, $3::uuid, $4::uuid, $5, $6::jsonb, $7, $8, $9, $10,
                convert_to($11::text, 'UTF8'), 1, 1
          WHERE EXISTS (SELECT 1 FROM backend.webhook_for_dispatcher w WHERE w.id = $2::uuid)
         ON CONFLICT (id) DO NOTHING
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
   * if `send` succeeds. `gone`: no such delivery of that webhook (deleted with it since). Waits out database outages.
   */
  takeManualAttempt(
    deliveryId: string,
    webhookId: string,
    max: number,
    send: (attempt: number) => Promise<void>,
  ): Promise<{ attempt: number } | { refused: number } | { gone: true }> {
    return this.retry.run(() =>
      this.db.transaction(async (manager) => {
        const [delivery]: Array<{ manual_attempts: number; last_manual_attempt: number }> = await manager.query(
          `SELECT manual_attempts, last_manual_attempt FROM webhook_delivery
            WHERE id = $1 AND webhook_id = $2 FOR UPDATE`,
          [deliveryId, webhookId],
        );
        if (!delivery) return { gone: true } as const;
        const [logged]: Array<{ automatic: number; manual: number; top: number }> = await manager.query(
          `SELECT count(*) FILTER (WHERE NOT manual)::int AS automatic, count(*) FILTER (WHERE manual)::int AS manual,
                  coalesce(max(attempt), 0)::int AS top
             FROM webhook_log WHERE delivery_id = $1`,
          [deliveryId],
        );
        const taken = Math.max(delivery.manual_attempts, logged.manual);
        if (logged.automatic + taken >= max) return { refused: logged.automatic + taken };
        const attempt = Math.max(delivery.last_manual_attempt, logged.top) + 1;
        await manager.query(
          'UPDATE webhook_delivery SET manual_attempts = $2, last_manual_attempt = $3 WHERE id = $1',
          [deliveryId, taken + 1, attempt],
        );
        await send(attempt);
        return { attempt };
      }),
    );
  }
}
