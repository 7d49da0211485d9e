import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUIDv7 } from 'node:crypto';
import { AmqpClient, ATTEMPT_HEADER, EXCHANGES, ROUTING_KEYS, type DeliveryMessage } from '#messaging';
import { type LogOutcome } from '#persistence';
import { PlatformMetrics } from '#platform';
import { AmqpTap, appTestEnv, insertDelivery, insertMerchant, insertWebhook } from '#testing';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { DatabaseRetry } from '../common/database-retry.js';
import { loadWebhookDispatcherConfig } from '../config/webhook-dispatcher.config.js';
import type { DeliveryLogWriter } from '../delivery/delivery-log.writer.js';
import { DeliveryPublisher } from '../delivery/delivery.publisher.js';
import { DispatcherMetrics } from '../metrics/dispatcher.metrics.js';
import { WebhookRepository } from '../webhook/webhook.repository.js';
import { RecoverJob } from './recover.job.js';
import { RecoverRepository } from './recover.repository.js';
import { attemptRecord, deliveryLogWriter } from '../../test/attempt-record.fixture.js';
import { dispatcherSpecInfrastructure, type DispatcherSpecBroker } from '../../test/spec-infrastructure.js';

const HOUR = 3_600_000;

/**
 * A recover's job on a real database and broker, its ticks driven by the spec (not by its timer): it queues the
 * recover's deliveries to the recover lane (a tap of the deliveries exchange sees them) as manual attempts of the
 * recover, finishes once each was attempted, and cancels a recover whose webhook was disabled. Its deliveries'
 * failures are logged through the dispatcher's log writer, which keeps them recoverable.
 * On a database and vhost of its own (provisionOwnInfrastructure): no other suite's recover job takes its recovers,
 * and what it queues stays off the run's queues.
 */
describe('RecoverJob (real PostgreSQL, RabbitMQ)', () => {
  let infra: DispatcherSpecBroker;
  let admin: pg.Pool;
  const config = loadWebhookDispatcherConfig(appTestEnv());
  let db: DataSource;
  let amqp: AmqpClient;
  let tap: AmqpTap<DeliveryMessage>;
  let log: DeliveryLogWriter;
  let recovers: RecoverRepository;
  let job: RecoverJob;
  let merchantId: string;

  beforeAll(async () => {
    infra = await dispatcherSpecInfrastructure('recover-job', { topology: config.topology });
    ({ admin, db, amqp } = infra);
    tap = await AmqpTap.bind<DeliveryMessage>(EXCHANGES.deliveries, ROUTING_KEYS.deliverRecovered, infra.own.amqpUrl);
    const retry = new DatabaseRetry();
    // Health reports are not what this suite is about: nobody is told.
    log = deliveryLogWriter(db, retry);
    recovers = new RecoverRepository(db, retry);
    job = new RecoverJob(
      recovers,
      new WebhookRepository(db, retry),
      new DeliveryPublisher(amqp, config),
      new DispatcherMetrics(new PlatformMetrics()),
      config,
    );
    merchantId = await insertMerchant(admin);
  });
  afterAll(async () => {
    await job?.beforeApplicationShutdown();
    await log?.onApplicationShutdown();
    await tap?.close();
    await infra?.close();
  });

  /** Logs an attempt of the delivery through the dispatcher's log writer. */
  const logAttempt = (
    webhookId: string,
    deliveryId: string,
    attempt: number,
    outcome: LogOutcome,
    { manual = false, recoverId }: { manual?: boolean; recoverId?: string } = {},
  ) => log.write(attemptRecord({ webhookId, deliveryId, attempt, outcome }, { manual, recoverId }));

  /** A webhook with `failed` failed deliveries and one delivered, in the last hour; the failed ones' ids. */
  async function webhookWithFailures(failed: number): Promise<{ webhookId: string; failedIds: string[] }> {
    const webhookId = await insertWebhook(admin, { merchantId });
    const failedIds: string[] = [];
    for (let i = 0; i < failed; i += 1) {
      const deliveryId = await insertDelivery(admin, {
        webhookId,
        merchantId,
        createdAt: new Date(Date.now() - HOUR / 2),
      });
      await logAttempt(webhookId, deliveryId, 1, 'failed');
      failedIds.push(deliveryId);
    }
    const delivered = await insertDelivery(admin, {
      webhookId,
      merchantId,
      createdAt: new Date(Date.now() - HOUR / 2),
    });
    await logAttempt(webhookId, delivered, 1, 'delivered');
    return { webhookId, failedIds };
  }

  async function start(webhookId: string): Promise<string> {
    const id = randomUUIDv7();
    expect(await recovers.start({ id, webhookId, merchantId, since: new Date(Date.now() - HOUR) })).toBe('started');
    return id;
  }
  const stateOf = async (id: string) =>
    (await admin.query<{ state: string }>(`SELECT state FROM webhook_recover WHERE id = $1`, [id])).rows[0].state;
  /** Ticks the job (as its timer would) until `done` holds. */
  async function tickUntil<T>(done: () => Promise<T | false | undefined>, what: string): Promise<T> {
    const until = Date.now() + 15_000;
    for (;;) {
      await job.tick();
      const result = await done();
      if (result) return result;
      if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  const queuedFor = (recoverId: string) => tap.messages.filter((m) => m.body.recoverId === recoverId);

  it("queues each failed delivery once to the recover lane as the recover's next manual attempt, and finishes when all were attempted", async () => {
    const { webhookId, failedIds } = await webhookWithFailures(3);
    const recoverId = await start(webhookId);

    const queued = await tickUntil(async () => queuedFor(recoverId).length >= 3 && queuedFor(recoverId), 'the queue');
    expect(queued.map((m) => m.body.deliveryId).sort()).toEqual([...failedIds].sort());
    expect(queued.every((m) => m.body.manual === true && m.headers[ATTEMPT_HEADER] === 2)).toBe(true);
    // Not attempted yet: still running, and nothing is queued twice.
    await job.tick();
    expect(await stateOf(recoverId)).toBe('running');
    expect(queuedFor(recoverId)).toHaveLength(3);

    // The recover lane attempts them (here: logged as the consumer would).
    for (const deliveryId of failedIds)
      await logAttempt(webhookId, deliveryId, 2, 'delivered', { manual: true, recoverId });
    await tickUntil(async () => (await stateOf(recoverId)) === 'finished', 'the recover to finish');
  });

  it('cancels a recover whose webhook was disabled, queueing nothing more', async () => {
    const { webhookId } = await webhookWithFailures(2);
    const recoverId = await start(webhookId);
    // Disabled after the start (a disabled webhook's start is refused), before the job queued anything.
    await admin.query(`UPDATE webhook SET enabled = false, disabled_reason = 'manual' WHERE id = $1`, [webhookId]);
    await tickUntil(async () => (await stateOf(recoverId)) === 'cancelled', 'the recover to be cancelled');
    expect(queuedFor(recoverId)).toEqual([]);
  });
});
