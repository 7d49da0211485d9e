import { randomUUID } from 'node:crypto';
import type { AmqpClient } from '#messaging';
import { PlatformMetrics } from '#platform';
import { uuidV7At } from '#testing';
import type { DataSource } from 'typeorm';
import { DatabaseRetry } from '../src/common/database-retry.js';
import type { WebhookDispatcherConfig } from '../src/config/webhook-dispatcher.config.js';
import { DeliveryLogWriter, type AttemptRecord } from '../src/delivery/delivery-log.writer.js';
import { DeliveryWaitRepository } from '../src/delivery/delivery-wait.repository.js';
import { DeliveryAttempt } from '../src/delivery/delivery.attempt.js';
import { DeliveryGate } from '../src/delivery/delivery.gate.js';
import { DeliveryPublisher } from '../src/delivery/delivery.publisher.js';
import { DeliveryRepository } from '../src/delivery/delivery.repository.js';
import { DeliveryService } from '../src/delivery/delivery.service.js';
import { HttpSender } from '../src/delivery/http.sender.js';
import { SupersededRepository } from '../src/delivery/superseded.repository.js';
import { WebhookRateLimiter } from '../src/delivery/webhook-rate.limiter.js';
import { DispatcherMetrics } from '../src/metrics/dispatcher.metrics.js';
import { RecoverStates } from '../src/recover/recover-state.cache.js';
import { RecoverRepository } from '../src/recover/recover.repository.js';
import type { WebhookCache } from '../src/webhook/webhook.cache.js';
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

/**
 * The delivery service as the dispatcher wires it (gate, rate limiter, superseded repeats, recovers' states, the
 * attempt with its real HTTP sender and publisher) on `db` and `amqp`, with the webhooks from `cache` and the log
 * written by `log`.
 */
export function deliveryService(
  config: WebhookDispatcherConfig,
  db: DataSource,
  amqp: AmqpClient,
  cache: WebhookCache,
  log: DeliveryLogWriter,
  retry = new DatabaseRetry(),
): DeliveryService {
  const metrics = new DispatcherMetrics(new PlatformMetrics());
  const waits = new DeliveryWaitRepository(db, retry);
  const publisher = new DeliveryPublisher(amqp, config);
  const gate = new DeliveryGate(
    log,
    waits,
    metrics,
    new WebhookRateLimiter(db, retry),
    new SupersededRepository(db, retry),
    new RecoverStates(new RecoverRepository(db, retry)),
    cache,
  );
  return new DeliveryService(
    config,
    cache,
    deliveryRepository(db, retry),
    new DeliveryAttempt(config, new HttpSender(config), log, publisher, waits, metrics),
    gate,
    log,
    publisher,
    metrics,
  );
}
