import { Injectable } from '@nestjs/common';
import { randomUUIDv7 } from 'node:crypto';
import { eventKindOf, type WebhookRecord } from '#domain';
import type { PlatformEvent, PlatformEventType } from '#messaging';
import { DataSource, type EntityManager } from 'typeorm';

/**
 * A finished recover is reported when the relay sees it within this many days of its end (webhook-config down that
 * long: it is not reported).
 */
export const RECOVERS_REPORTED_WITHIN_DAYS = 7;

/** An operational event's type: `webhook.failing`, `webhook.disabled`, `webhook.enabled` or `webhook.recovered`. */
export type OperationalEventType = Extract<PlatformEventType, `webhook.${string}`>;

/** An event of the outbox, claimed to be published now. */
export interface ClaimedEvent {
  id: string;
  /** Tries so far, this one included. */
  attempts: number;
  payload: PlatformEvent;
}

interface WebhookNow {
  id: string;
  merchantId: string;
  integrationId: string | null;
  name: string;
  url: string;
  enabled: boolean;
  disabledReason: WebhookRecord['disabledReason'];
  failingSince: Date | null;
  lastSuccessAt: Date | null;
}

/**
 * The outbox of operational events (backend.operational_event, issue #34): an event about one of a merchant's webhooks
 * is written here in the transaction of the change it reports ({@link record}), as the platform event it is published
 * as (libs/messaging PlatformEvent: the category `webhook`, the subject the webhook, its record the webhook as it is
 * then — its health the dispatcher's, as the backend shows it). The event belongs to the webhook's integration (null
 * when the webhook is linked to none). OperationalEventRelay publishes the rows on `payments.events`.
 */
@Injectable()
export class OperationalEventOutbox {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Writes the event `type` about the webhook, in `manager`'s transaction (the one that changed it). False when there
   * is no such webhook of the merchant.
   */
  async record(
    manager: EntityManager,
    type: OperationalEventType,
    webhook: { merchantId: string; webhookId: string },
    options: { count?: number; occurredAt?: Date; failingSince?: Date } = {},
  ): Promise<boolean> {
    const [now]: WebhookNow[] = await manager.query(
      `SELECT w.id, w.merchant_id AS "merchantId", w.integration_id AS "integrationId", w.name, w.url, w.enabled,
              w.disabled_reason AS "disabledReason", h.failing_since AS "failingSince",
              h.last_success_at AS "lastSuccessAt"
         FROM webhook w LEFT JOIN delivery.webhook_health_for_webhook_config h ON h.webhook_id = w.id
        WHERE w.id = $1 AND w.merchant_id = $2`,
      [webhook.webhookId, webhook.merchantId],
    );
    if (!now) return false;
    // A report's episode, when the dispatcher's health (read here) does not show it yet.
    const failingSince = now.failingSince ?? options.failingSince ?? null;
    const occurredAt = options.occurredAt ?? new Date();
    const record: WebhookRecord = {
      id: now.id,
      name: now.name,
      url: now.url,
      // As the backend shows it (webhook.view.ts).
      state: !now.enabled ? 'disabled' : failingSince ? 'failing' : 'healthy',
      disabledReason: now.disabledReason,
      failingSince: failingSince?.toISOString() ?? null,
      lastSuccessAt: now.lastSuccessAt?.toISOString() ?? null,
      count: options.count ?? null,
      occurredAt: occurredAt.toISOString(),
    };
    const event: PlatformEvent = {
      v: 1,
      id: randomUUIDv7(),
      type,
      category: eventKindOf(type),
      merchantId: now.merchantId,
      integrationId: now.integrationId,
      occurredAt: occurredAt.toISOString(),
      subjectId: now.id,
      data: record as unknown as Record<string, unknown>,
    };
    await manager.query(
      `INSERT INTO operational_event (id, merchant_id, webhook_id, type, payload) VALUES ($1, $2, $3, $4, $5)`,
      [event.id, event.merchantId, now.id, type, JSON.stringify(event)],
    );
    return true;
  }

  /**
   * Writes the `webhook.recovered` of up to `limit` recovers that finished and are not reported yet (the dispatcher's,
   * through its view), each with the count it sent, once each (backend.recover_reported). Only those finished in the
   * last {@link RECOVERS_REPORTED_WITHIN_DAYS} days are looked at (an index on their end): the check runs every few
   * seconds, and the finished recovers only grow. How many it wrote.
   */
  async recordFinishedRecovers(limit: number): Promise<number> {
    const finished: Array<{ id: string; webhookId: string; merchantId: string; sent: number; finishedAt: Date }> =
      await this.dataSource.query(
        `SELECT r.id, r.webhook_id AS "webhookId", w.merchant_id AS "merchantId", r.sent, r.finished_at AS "finishedAt"
           FROM delivery.webhook_recover_for_webhook_config r JOIN webhook w ON w.id = r.webhook_id
          WHERE r.state = 'finished' AND r.finished_at > now() - $2::int * interval '1 day'
            AND NOT EXISTS (SELECT FROM recover_reported x WHERE x.recover_id = r.id)
          LIMIT $1`,
        [limit, RECOVERS_REPORTED_WITHIN_DAYS],
      );
    let written = 0;
    for (const recover of finished) {
      await this.dataSource.transaction(async (manager) => {
        const [claimed] = await manager.query(
          `INSERT INTO recover_reported (recover_id) VALUES ($1) ON CONFLICT DO NOTHING RETURNING recover_id`,
          [recover.id],
        );
        if (!claimed) return; // another process reported it
        const occurredAt = recover.finishedAt ?? new Date();
        if (await this.record(manager, 'webhook.recovered', recover, { count: recover.sent, occurredAt })) written++;
      });
    }
    return written;
  }

  /** Claims up to `limit` events due now (oldest first) for `leaseMs` (SKIP LOCKED: relays take different rows). */
  claim(limit: number, leaseMs: number): Promise<ClaimedEvent[]> {
    return this.dataSource.query(
      `WITH due AS (
         SELECT id FROM operational_event
          WHERE published_at IS NULL AND next_attempt_at <= now() AND (claimed_until IS NULL OR claimed_until <= now())
          ORDER BY next_attempt_at, id
          LIMIT $1
          FOR UPDATE SKIP LOCKED),
       claimed AS (
         UPDATE operational_event e
            SET claimed_until = now() + $2::float8 * interval '1 millisecond', attempts = attempts + 1
           FROM due WHERE e.id = due.id
         RETURNING e.id, e.attempts, e.payload)
       SELECT id, attempts, payload FROM claimed ORDER BY id`,
      [limit, leaseMs],
    );
  }

  /** Confirmed by the broker: never published again. */
  async published(id: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE operational_event SET published_at = now(), claimed_until = NULL, last_error = NULL WHERE id = $1`,
      [id],
    );
  }

  /** Not confirmed: tried again in `retryInMs`, with why. */
  async failed(id: string, error: string, retryInMs: number): Promise<void> {
    await this.dataSource.query(
      `UPDATE operational_event
          SET claimed_until = NULL, last_error = $2, next_attempt_at = now() + $3::float8 * interval '1 millisecond'
        WHERE id = $1 AND published_at IS NULL`,
      [id, error.slice(0, 500), retryInMs],
    );
  }

  /** Deletes published events older than `days`; how many. */
  async deletePublishedBefore(days: number): Promise<number> {
    const [, deleted]: [unknown, number] = await this.dataSource.query(
      `DELETE FROM operational_event WHERE published_at < now() - $1::int * interval '1 day'`,
      [days],
    );
    return deleted;
  }
}
