import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { DeliverySnapshot } from '#messaging';
import { isForeignKeyViolation } from '#persistence';
import { Batcher } from '../common/batcher.js';
import { DatabaseRetry } from '../common/database-retry.js';

export interface NewDelivery extends DeliverySnapshot {
  id: string;
  merchantId: string;
  url: string;
  retryOnError: boolean;
}

/** webhook_delivery rows: one per (event, webhook), created by the fan-out. */
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
   * A webhook deleted since the cache read it fails the batch on the foreign key; the batch is then inserted again
   * without that webhook's rows (checking in every statement would cost each row a lookup the key makes anyway).
   */
  private async insertEvents(
    events: NewDelivery[][],
    skipDeletedWebhooks = false,
  ): Promise<Array<Map<string, string>>> {
    try {
      return await this.insertEventsOnce(events, skipDeletedWebhooks);
    } catch (error) {
      if (!isForeignKeyViolation(error) || skipDeletedWebhooks) throw error;
      return this.insertEventsOnce(events, true);
    }
  }

  private async insertEventsOnce(
    events: NewDelivery[][],
    skipDeletedWebhooks: boolean,
  ): Promise<Array<Map<string, string>>> {
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
        ${skipDeletedWebhooks ? 'WHERE EXISTS (SELECT 1 FROM webhook w WHERE w.id = u."webhookId")' : ''}
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

  /** Reads a delivery for an attempt whose message carries no snapshot (tests and resends). */
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
}
