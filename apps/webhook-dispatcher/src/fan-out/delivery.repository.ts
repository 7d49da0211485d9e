import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { DeliverySnapshot } from '#messaging';

export interface NewDelivery extends DeliverySnapshot {
  id: string;
  merchantId: string;
  url: string;
  retryOnError: boolean;
}

/** webhook_delivery rows: one per (event, webhook), created by the fan-out. */
@Injectable()
export class DeliveryRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * Inserts the deliveries of one event, keeping any that already exist (a redelivered event), and returns
   * the ids of every delivery of this event that has not been attempted yet, keyed by webhook id.
   */
  async createForEvent(eventId: string, deliveries: NewDelivery[]): Promise<Map<string, string>> {
    const column = <K extends keyof NewDelivery>(key: K) => deliveries.map((d) => d[key]);
    const inserted: Array<{ id: string; webhook_id: string }> = await this.db.query(
      `INSERT INTO webhook_delivery
         (id, webhook_id, merchant_id, event_id, event_type, subject, url, content_type, version, retry_on_error, body)
       SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::uuid[], $5::text[], $6::jsonb[], $7::text[],
                            $8::text[], $9::text[], $10::boolean[], $11::bytea[])
       ON CONFLICT (event_id, webhook_id) DO NOTHING
       RETURNING id, webhook_id`,
      [
        column('id'),
        column('webhookId'),
        column('merchantId'),
        column('eventId'),
        column('eventType'),
        deliveries.map((d) => JSON.stringify(d.subject)),
        column('url'),
        column('contentType'),
        column('version'),
        column('retryOnError'),
        deliveries.map((d) => Buffer.from(d.body, 'utf8')),
      ],
    );
    const ids = new Map(inserted.map((row) => [row.webhook_id, row.id]));
    if (ids.size < deliveries.length) {
      // This event was fanned out before (the dispatcher stopped before acking it): reuse those ids, and
      // publish again the ones that were never attempted (at-least-once; receivers dedupe on webhook-id).
      const existing: Array<{ id: string; webhook_id: string }> = await this.db.query(
        `SELECT d.id, d.webhook_id FROM webhook_delivery d
          WHERE d.event_id = $1 AND NOT EXISTS (SELECT 1 FROM webhook_log l WHERE l.delivery_id = d.id)`,
        [eventId],
      );
      for (const row of existing) ids.set(row.webhook_id, row.id);
    }
    return ids;
  }

  /** Reads a delivery for an attempt whose message carries no snapshot (tests and resends). */
  async findSnapshot(id: string): Promise<DeliverySnapshot | undefined> {
    const rows: Array<DeliverySnapshot & { body: Buffer }> = await this.db.query(
      `SELECT webhook_id AS "webhookId", event_id AS "eventId", event_type AS "eventType", subject,
              content_type AS "contentType", version, body
         FROM webhook_delivery WHERE id = $1`,
      [id],
    );
    const row = rows[0];
    return row && { ...row, body: row.body.toString('utf8') };
  }
}
