import { randomUUID, randomUUIDv7 } from 'node:crypto';
import { LATEST_WEBHOOK_VERSION, sampleSubjectOf, type EventKind } from '#domain';
import type { PlatformEvent } from '#messaging';
import { uuidV7At } from './ids.js';

/**
 * Builders of the records the specs share: a platform event as transaction-api publishes it, and the rows of
 * webhook-config's and the dispatcher's tables a spec seeds (written with plain SQL, as the owning app stores them).
 * One copy here instead of one per spec: a new column or a new rule of the contract changes one place.
 */

/** Anything with `query(text, params)`: a pg Pool or Client, a TypeORM DataSource or QueryRunner. */
export interface Queryable {
  query(text: string, params?: unknown[]): Promise<unknown>;
}

/**
 * A transaction event as transaction-api publishes it: `overrides` go into the transaction's record (its `uuid`
 * names the subject: several events of one transaction), `envelope` into the event (`type`, `position`: the event's
 * place in its transaction's history, as the outbox relay sets it; none by default, as before positions).
 */
export function transactionEvent(
  merchantId: string,
  integrationId: string | null,
  overrides: Partial<Record<string, unknown>> = {},
  envelope: Partial<Pick<PlatformEvent, 'type' | 'position'>> = {},
): PlatformEvent {
  const uuid = typeof overrides.uuid === 'string' ? overrides.uuid : randomUUID();
  const now = new Date().toISOString();
  return {
    v: 1,
    id: randomUUIDv7(), // as transaction-api makes them: the fan-out dates the event's deliveries by it
    type: 'transaction.created',
    category: 'transaction',
    merchantId,
    integrationId,
    occurredAt: now,
    subjectId: uuid,
    ...envelope,
    data: {
      ...sampleSubjectOf('transaction', { id: uuid, at: now, integrationId, referenceId: 'order-1001' }).transaction,
      ...overrides,
    },
  };
}

export interface WebhookRow {
  id?: string;
  merchantId: string;
  integrationId?: string | null;
  name?: string;
  url?: string;
  contentType?: 'json' | 'php-post';
  version?: string;
  retryOnError?: boolean;
  events?: string[];
  /** false: disabled by its merchant (`manual`), unless `disabledReason` says otherwise. */
  enabled?: boolean;
  disabledReason?: 'manual' | 'failing' | 'gone';
  maxPerSecond?: number | null;
  skipSupersededRepeats?: boolean;
  /** When its merchant last enabled it (the health episode's start counts from it); the column's default otherwise. */
  enabledAt?: Date;
}

/** Inserts a webhook row as webhook-config stores it (no secret: see the dispatcher harness for signing); its id. */
export async function insertWebhook(db: Queryable, row: WebhookRow): Promise<string> {
  const id = row.id ?? randomUUID();
  const enabled = row.enabled ?? true;
  await db.query(
    `INSERT INTO webhook (id, merchant_id, integration_id, name, url, content_type, version, retry_on_error, events,
                          enabled, disabled_reason, max_per_second, skip_superseded_repeats)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
    [
      id,
      row.merchantId,
      row.integrationId ?? null,
      row.name ?? 'w',
      row.url ?? 'https://example.com/h',
      row.contentType ?? 'json',
      row.version ?? LATEST_WEBHOOK_VERSION,
      row.retryOnError ?? true,
      row.events ?? ['transaction'],
      enabled,
      enabled ? null : (row.disabledReason ?? 'manual'),
      row.maxPerSecond ?? null,
      row.skipSupersededRepeats ?? true,
    ],
  );
  if (row.enabledAt) await db.query(`UPDATE webhook SET enabled_at = $2 WHERE id = $1`, [id, row.enabledAt]);
  return id;
}

export interface DeliveryRow {
  /** By default a version-7 UUID of `createdAt` (its day partition goes by it). */
  id?: string;
  webhookId: string;
  merchantId: string;
  eventId?: string;
  eventType?: EventKind;
  subject?: Record<string, unknown>;
  url?: string;
  contentType?: 'json' | 'php-post';
  version?: string;
  retryOnError?: boolean;
  /** The rendered body (`{}` by default). */
  body?: string;
  createdAt?: Date;
}

/** Inserts a delivery row as the dispatcher's fan-out records it (without log entries); its id. */
export async function insertDelivery(db: Queryable, row: DeliveryRow): Promise<string> {
  const createdAt = row.createdAt ?? new Date();
  const id = row.id ?? uuidV7At(createdAt.getTime());
  await db.query(
    `INSERT INTO webhook_delivery (id, webhook_id, merchant_id, event_id, event_type, subject, url, content_type,
                                   version, retry_on_error, body, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
    [
      id,
      row.webhookId,
      row.merchantId,
      row.eventId ?? uuidV7At(createdAt.getTime()),
      row.eventType ?? 'transaction',
      JSON.stringify(row.subject ?? { uuid: 'x' }),
      row.url ?? 'https://example.com/h',
      row.contentType ?? 'json',
      row.version ?? LATEST_WEBHOOK_VERSION,
      row.retryOnError ?? true,
      Buffer.from(row.body ?? '{}'),
      createdAt,
    ],
  );
  return id;
}

/** Inserts a merchant (transaction-api's row; once per id); its id. */
export async function insertMerchant(db: Queryable, id: string = randomUUID(), name = 'M'): Promise<string> {
  await db.query(`INSERT INTO merchant (id, name) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING`, [id, name]);
  return id;
}
