import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';

/** Writes a delivery and its attempts the way the dispatcher does (webhook_delivery + webhook_log rows). */
export async function seedDelivery(
  db: DataSource,
  webhook: { id: string; merchantId: string; url: string },
  attempts: Array<{
    status: number;
    createdAt: Date;
    error?: string | null;
    responseExcerpt?: string | null;
    durationMs?: number;
    nextAttemptAt?: Date | null;
    /** The dispatcher's attempt number (default: its place in this list) and whether it was a resend or test. */
    attempt?: number;
    manual?: boolean;
  }>,
): Promise<{ deliveryId: string; eventId: string; logIds: string[] }> {
  const { deliveryId, eventId, uuid } = await seedDeliveryRow(db, webhook);
  const logIds: string[] = [];
  for (const [index, attempt] of attempts.entries()) {
    const id = randomUUID();
    logIds.push(id);
    await db.query(
      `INSERT INTO webhook_log (id, delivery_id, webhook_id, attempt, event_type, event_id, request, status, duration_ms, error, response_excerpt, created_at, next_attempt_at, manual)
       VALUES ($1, $2, $3, $4, 'transaction', $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
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
          psp: 'Payrexx Direct',
          type: 'e-commerce',
          uuid,
        }),
        attempt.status,
        attempt.durationMs ?? 120,
        attempt.error ?? null,
        attempt.responseExcerpt ?? null,
        attempt.createdAt,
        attempt.nextAttemptAt ?? null,
        attempt.manual ?? false,
      ],
    );
  }
  return { deliveryId, eventId, logIds };
}

/** Writes a delivery of a transaction event the way the dispatcher does, without attempts. */
export async function seedDeliveryRow(
  db: DataSource,
  webhook: { id: string; merchantId: string; url: string },
): Promise<{ deliveryId: string; eventId: string; uuid: string }> {
  const deliveryId = randomUUID();
  const eventId = randomUUID();
  const uuid = randomUUID();
  await db.query(
    `INSERT INTO webhook_delivery (id, webhook_id, merchant_id, event_id, event_type, subject, url, content_type, version, retry_on_error, body)
     VALUES ($1, $2, $3, $4, 'transaction', $5, $6, 'json', '2026-08-20', true, $7)`,
    [
      deliveryId,
      webhook.id,
      webhook.merchantId,
      eventId,
      JSON.stringify({ psp: 'Payrexx Direct', type: 'e-commerce', uuid }),
      webhook.url,
      Buffer.from('{"transaction":{}}'),
    ],
  );
  return { deliveryId, eventId, uuid };
}
