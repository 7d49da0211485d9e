import { randomUUID } from 'node:crypto';
import { uuidV7At } from '#testing';
import type { DataSource } from 'typeorm';
import { DatabaseRetry } from '../src/common/database-retry.js';
import { DeliveryLogWriter, type AttemptRecord } from '../src/delivery/delivery-log.writer.js';
import { DeliveryRepository } from '../src/delivery/delivery.repository.js';
import { RecoverRepository } from '../src/recover/recover.repository.js';
import type { WebhookHealthMonitor } from '../src/webhook-health/webhook-health.monitor.js';
import { WebhookHealthRepository } from '../src/webhook-health/webhook-health.repository.js';

/**
 * The log writer as the dispatcher wires it (the health and recover repositories write their tables in its
 * transaction), on `db`; its monitor reports nothing unless one is given.
 */
export function deliveryLogWriter(
  db: DataSource,
  retry = new DatabaseRetry(),
  monitor: Pick<WebhookHealthMonitor, 'observe'> = { observe: async () => undefined },
): DeliveryLogWriter {
  const health = new WebhookHealthRepository(db, retry);
  return new DeliveryLogWriter(db, retry, health, new RecoverRepository(db, retry), monitor as WebhookHealthMonitor);
}

/** The delivery repository as the dispatcher wires it (the health and recover repositories delete their rows). */
export function deliveryRepository(db: DataSource, retry = new DatabaseRetry()): DeliveryRepository {
  return new DeliveryRepository(db, retry, new WebhookHealthRepository(db, retry), new RecoverRepository(db, retry));
}

/**
 * A log entry as the dispatcher's log writer takes it (`DeliveryLogWriter.write`): attempt `attempt` of a delivery,
 * with `outcome` and its status (200 delivered, 500 failed, none skipped or superseded), at `at` (ms; its id is a
 * UUIDv7 of that time, as the dispatcher makes them). `overrides` set the rest (manual, recoverId, the request…).
 */
export function attemptRecord(
  entry: Pick<AttemptRecord, 'webhookId' | 'deliveryId' | 'attempt' | 'outcome'> & { at?: number },
  overrides: Partial<AttemptRecord> = {},
): AttemptRecord {
  const at = entry.at ?? Date.now();
  return {
    id: uuidV7At(at),
    deliveryId: entry.deliveryId,
    webhookId: entry.webhookId,
    attempt: entry.attempt,
    eventType: 'transaction',
    eventId: randomUUID(),
    request: {
      url: 'https://example.com/h',
      contentType: 'json',
      version: '2026-08-20',
      psp: null,
      type: null,
      uuid: 'x',
      referenceId: null,
    },
    outcome: entry.outcome,
    status: entry.outcome === 'delivered' ? 200 : entry.outcome === 'failed' ? 500 : null,
    durationMs: 5,
    error: null,
    responseExcerpt: null,
    createdAt: new Date(at),
    nextAttemptAt: null,
    manual: false,
    ...overrides,
  };
}
