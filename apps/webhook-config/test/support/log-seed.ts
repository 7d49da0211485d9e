import { randomUUID } from 'node:crypto';
import type { EventKind } from '#domain';
import { uuidV7At } from '#testing';
import type { DataSource } from 'typeorm';

/**
 * 10:00 UTC `days` days ago, in ms: a time for seeded attempts. The log keeps day partitions for the last 31 days
 * (and WEBHOOK_LOG_RETENTION): a fixed date would fall out of them as the calendar moves on.
 */
export const tenOClockDaysAgo = (days: number): number =>
  Math.floor(Date.now() / 86_400_000) * 86_400_000 - days * 86_400_000 + 10 * 3_600_000;

/**
 * Writes a delivery and its attempts the way the dispatcher does (webhook_delivery + webhook_log rows, with
 * version-7 ids of their times, and the delivery's `recoverable`). The delivery is created `deliveryCreatedAt` (default: with its first attempt).
 */
export async function seedDelivery(
  db: DataSource,
  webhook: { id: string; merchantId: string; url: string },
  attempts: Array<{
    /** null: no request was made (outcome skipped or superseded). */
    status: number | null;
    /** Default: delivered for a 2xx status, failed for any other. */
    outcome?: 'delivered' | 'failed' | 'skipped' | 'superseded';
    createdAt: Date;
    error?: string | null;
    responseExcerpt?: string | null;
    durationMs?: number;
    nextAttemptAt?: Date | null;
    /** The dispatcher's attempt number (default: its place in this list) and whether it was a resend or test. */
    attempt?: number;
    manual?: boolean;
  }>,
  deliveryCreatedAt?: Date,
  /** The event's kind and its subject's referenceId (default: a transaction without one). */
  event: { type?: EventKind; referenceId?: string | null } = {},
): Promise<{ deliveryId: string; eventId: string; uuid: string; logIds: string[] }> {
  const first = Math.min(...attempts.map((attempt) => attempt.createdAt.getTime()));
  const createdAt = deliveryCreatedAt ?? (attempts.length > 0 ? new Date(first) : undefined);
  const { deliveryId, eventId, uuid } = await seedDeliveryRow(db, webhook, createdAt);
  const eventType = event.type ?? 'transaction';
  const logIds: string[] = [];
  for (const [index, attempt] of attempts.entries()) {
    const id = uuidV7At(attempt.createdAt.getTime());
    logIds.push(id);
    await db.query(
      `INSERT INTO webhook_log (id, delivery_id, webhook_id, attempt, event_type, event_id, request, outcome, status, duration_ms, error, response_excerpt, created_at, next_attempt_at, manual)
       VALUES ($1, $2, $3, $4, $14, $5, $6, $15, $7, $8, $9, $10, $11, $12, $13)`,
      [
        id,
        deliveryId,
        webhook.id,
        attempt.attempt ?? index + 1,
        eventId,
        JSON.stringify({
          url: webhook.url,
          contentType: 'json',
          version: '2026-08-20',
          psp: eventType === 'transaction' ? 'Payrexx Direct' : null,
          type: eventType === 'transaction' ? 'e-commerce' : null,
          uuid,
          referenceId: event.referenceId ?? null,
        }),
        attempt.status,
        attempt.durationMs ?? 120,
        attempt.error ?? null,
        attempt.responseExcerpt ?? null,
        attempt.createdAt,
        attempt.nextAttemptAt ?? null,
        attempt.manual ?? false,
        eventType,
        attempt.outcome ??
          (attempt.status !== null && attempt.status >= 200 && attempt.status <= 299 ? 'delivered' : 'failed'),
      ],
    );
  }
  // The delivery's latest outcome, as the dispatcher's log writer keeps it (what a recover counts and sends).
  const latest = [...attempts].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())[0];
  if (latest) {
    const outcome =
      latest.outcome ??
      (latest.status !== null && latest.status >= 200 && latest.status <= 299 ? 'delivered' : 'failed');
    await db.query(
      `INSERT INTO webhook_delivery_outcome (delivery_id, created_at, webhook_id, recoverable, outcome_at)
       SELECT id, created_at, webhook_id, $2, $3 FROM webhook_delivery WHERE id = $1`,
      [deliveryId, outcome === 'failed' || outcome === 'skipped', latest.createdAt],
    );
  }
  return { deliveryId, eventId, uuid, logIds };
}

/** Writes a delivery of a transaction event the way the dispatcher does, without attempts, created `createdAt`. */
export async function seedDeliveryRow(
  db: DataSource,
  webhook: { id: string; merchantId: string; url: string },
  createdAt: Date = new Date(),
): Promise<{ deliveryId: string; eventId: string; uuid: string }> {
  const deliveryId = uuidV7At(createdAt.getTime());
  const eventId = uuidV7At(createdAt.getTime());
  const uuid = randomUUID();
  await db.query(
    `INSERT INTO webhook_delivery (id, webhook_id, merchant_id, event_id, event_type, subject, url, content_type, version, retry_on_error, body, created_at)
     VALUES ($1, $2, $3, $4, 'transaction', $5, $6, 'json', '2026-08-20', true, $7, $8)`,
    [
      deliveryId,
      webhook.id,
      webhook.merchantId,
      eventId,
      JSON.stringify({ psp: 'Payrexx Direct', type: 'e-commerce', uuid }),
      webhook.url,
      Buffer.from('{"transaction":{}}'),
      createdAt,
    ],
  );
  return { deliveryId, eventId, uuid };
}
