import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID, randomUUIDv7 } from 'node:crypto';
import type { DeliveryMessage, DeliverySnapshot } from '#messaging';
import { PlatformMetrics } from '#platform';
import { insertDelivery, insertMerchant, insertWebhook } from '#testing';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { DatabaseRetry } from '../common/database-retry.js';
import { DispatcherMetrics } from '../metrics/dispatcher.metrics.js';
import { RecoverStates } from '../recover/recover-state.cache.js';
import { RecoverRepository } from '../recover/recover.repository.js';
import type { SigningWebhook, WebhookCache } from '../webhook/webhook.cache.js';
import { DeliveryGate } from './delivery.gate.js';
import type { DeliveryLogWriter } from './delivery-log.writer.js';
import { DeliveryWaitRepository } from './delivery-wait.repository.js';
import { SupersededRepository } from './superseded.repository.js';
import { WebhookRateLimiter } from './webhook-rate.limiter.js';
import { dispatcherSpecInfrastructure, type DispatcherSpecInfrastructure } from '../../test/spec-infrastructure.js';
import { deliveryLogWriter } from '../../test/attempt-record.fixture.js';

/**
 * What a delivery must pass before its attempt, with the gate's real collaborators on a real database (log writer,
 * schedule, rate limit, superseded lookups, recover states): a disabled webhook's delivery is logged skipped (a test
 * or resend is still made), a cancelled recover's is dropped unlogged, a superseded repeat is logged superseded, a
 * rate-limited webhook's deliveries are spaced and, beyond HOLD_MS, put in the schedule. The webhook's settings are
 * handed in (the cache of webhook-config's table is not what is tested here).
 * On a database of its own (provisionOwnInfrastructure): its schedule rows, running recovers and rate bookings are
 * seen by no other suite's dispatcher.
 */
describe('DeliveryGate (real PostgreSQL)', () => {
  let infra: DispatcherSpecInfrastructure;
  let admin: pg.Pool;
  const current = new Map<string, SigningWebhook>();
  const cache = { forDelivery: async (id: string) => current.get(id) } as unknown as WebhookCache;
  let db: DataSource;
  let log: DeliveryLogWriter;
  let recovers: RecoverRepository;
  let gate: DeliveryGate;
  let merchantId: string;

  beforeAll(async () => {
    infra = await dispatcherSpecInfrastructure('delivery-gate');
    ({ admin, db } = infra);
    const retry = new DatabaseRetry();
    // Health reports are not what this suite is about: nobody is told.
    log = deliveryLogWriter(db, retry);
    recovers = new RecoverRepository(db, retry);
    gate = new DeliveryGate(
      log,
      new DeliveryWaitRepository(db, retry),
      new DispatcherMetrics(new PlatformMetrics()),
      new WebhookRateLimiter(db, retry),
      new SupersededRepository(db, retry),
      new RecoverStates(recovers),
      cache,
    );
    merchantId = await insertMerchant(admin);
  });
  afterAll(async () => {
    await log?.onApplicationShutdown();
    await infra?.close();
  });

  /** A webhook in the database and its settings as the cache hands them to the gate. */
  async function webhook(settings: Partial<SigningWebhook> = {}): Promise<SigningWebhook> {
    const id = await insertWebhook(admin, { merchantId, enabled: settings.enabled ?? true });
    const signing: SigningWebhook = {
      id,
      merchantId,
      integrationId: null,
      url: 'https://example.com/h',
      contentType: 'json',
      version: '2026-08-20',
      retryOnError: true,
      events: ['transaction'],
      enabled: true,
      enabledAt: null,
      maxPerSecond: null,
      skipSupersededRepeats: true,
      secrets: [{ secret: 'whsec_test', expiresAt: null }],
      headers: {},
      ...settings,
    };
    current.set(id, signing);
    return signing;
  }

  /** A recorded delivery of the webhook and its message (`position`: its event's place in its subject's history). */
  async function delivery(
    hook: SigningWebhook,
    extra: Partial<DeliveryMessage> = {},
    position?: number,
    subjectId: string = randomUUID(),
  ): Promise<{ message: DeliveryMessage; snapshot: DeliverySnapshot }> {
    const deliveryId = await insertDelivery(admin, { webhookId: hook.id, merchantId, subject: { uuid: subjectId } });
    const snapshot: DeliverySnapshot = {
      webhookId: hook.id,
      eventId: randomUUIDv7(),
      eventType: 'transaction',
      subject: { psp: 'Payrexx Direct', type: 'e-commerce', uuid: subjectId },
      contentType: 'json',
      version: '2026-08-20',
      body: '{}',
      occurredAt: new Date().toISOString(),
      ...(position === undefined ? {} : { position }),
    };
    return { message: { v: 1, deliveryId, snapshot, ...extra }, snapshot };
  }

  const outcomesOf = async (deliveryId: string) =>
    (
      await admin.query<{ outcome: string }>(
        `SELECT outcome FROM webhook_log WHERE delivery_id = $1 ORDER BY attempt`,
        [deliveryId],
      )
    ).rows.map((row) => row.outcome);

  it('opens at once for an enabled webhook without a rate limit, and refuses one without a signing secret', async () => {
    const hook = await webhook();
    const { message, snapshot } = await delivery(hook);
    expect(await gate.pass(message, 1, snapshot, hook)).toEqual({ open: true });
    await expect(gate.pass(message, 1, snapshot, { ...hook, secrets: [] })).rejects.toThrow(/no valid signing secret/);
    expect(await outcomesOf(message.deliveryId)).toEqual([]);
  });

  it("logs a disabled webhook's delivery as skipped, but makes a test or resend", async () => {
    const hook = await webhook({ enabled: false });
    const fanned = await delivery(hook);
    expect(await gate.pass(fanned.message, 1, fanned.snapshot, hook)).toBe('dropped');
    expect(await outcomesOf(fanned.message.deliveryId)).toEqual(['skipped']);
    const resend = await delivery(hook, { manual: true });
    expect(await gate.pass(resend.message, 2, resend.snapshot, hook)).toEqual({ open: true });
    expect(await outcomesOf(resend.message.deliveryId)).toEqual([]);
  });

  it("drops a recovered delivery unlogged once its recover is cancelled (or unknown), and passes a running one's", async () => {
    const hook = await webhook();
    const unknown = await delivery(hook, { manual: true, recoverId: randomUUIDv7() });
    expect(await gate.pass(unknown.message, 2, unknown.snapshot, hook)).toBe('dropped');
    expect(await outcomesOf(unknown.message.deliveryId)).toEqual([]);

    const recoverId = randomUUIDv7();
    const since = new Date(Date.now() - 3_600_000);
    expect(await recovers.start({ id: recoverId, webhookId: hook.id, merchantId, since })).toBe('started');
    const running = await delivery(hook, { manual: true, recoverId });
    expect(await gate.pass(running.message, 2, running.snapshot, hook)).toEqual({ open: true });
    // A recovered delivery of a disabled webhook is not a resend: skipped.
    const disabled = { ...hook, enabled: false };
    expect(await gate.pass(running.message, 2, running.snapshot, disabled)).toBe('dropped');
    expect(await outcomesOf(running.message.deliveryId)).toEqual(['skipped']);
  });

  it('logs a repeat superseded once a newer event of its subject was delivered to the webhook; a first attempt is made', async () => {
    const hook = await webhook();
    const subjectId = randomUUID();
    await admin.query(
      `INSERT INTO delivery.subject_delivered (webhook_id, event_type, subject_id, position, delivered_hour)
       VALUES ($1, 'transaction', $2, 5, date_trunc('hour', now()))`,
      [hook.id, subjectId],
    );
    const older = await delivery(hook, {}, 3, subjectId);
    expect(await gate.pass(older.message, 1, older.snapshot, hook)).toEqual({ open: true });
    expect(await gate.pass(older.message, 2, older.snapshot, hook)).toBe('dropped');
    expect(await outcomesOf(older.message.deliveryId)).toEqual(['superseded']);
    // Not when the webhook keeps superseded repeats, nor for the newest event itself.
    expect(await gate.pass(older.message, 3, older.snapshot, { ...hook, skipSupersededRepeats: false })).toEqual({
      open: true,
    });
    const newest = await delivery(hook, {}, 5, subjectId);
    expect(await gate.pass(newest.message, 2, newest.snapshot, hook)).toEqual({ open: true });
  });

  it("spaces a rate-limited webhook's deliveries and puts those beyond HOLD_MS in the schedule", async () => {
    const hook = await webhook({ maxPerSecond: 2 });
    const deliveries = [];
    for (let i = 0; i < 5; i += 1) deliveries.push(await delivery(hook));
    // A burst: all five reach the gate at once.
    const started = Date.now();
    const results = await Promise.all(
      deliveries.map(async ({ message, snapshot }) => ({
        deliveryId: message.deliveryId,
        decision: await gate.pass(message, 1, snapshot, hook),
      })),
    );
    const opened = results.filter((r) => typeof r.decision === 'object');
    const handedOver = results.filter((r) => r.decision === 'handed-over');
    // Now, +500 ms and +1000 ms are within HOLD_MS; the rest wait in the schedule.
    expect(opened).toHaveLength(3);
    expect(handedOver).toHaveLength(2);
    const starts = opened.map((r) => (r.decision as { rateAt: number }).rateAt).sort((a, b) => a - b);
    expect(starts[1] - starts[0]).toBeCloseTo(500, -1);
    expect(starts[2] - starts[1]).toBeCloseTo(500, -1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900); // the gate waited for each start
    const waiting = await admin.query(`SELECT delivery_id FROM delivery.delivery_wait WHERE webhook_id = $1`, [
      hook.id,
    ]);
    expect(waiting.rows.map((row) => row.delivery_id).sort()).toEqual(handedOver.map((r) => r.deliveryId).sort());
  });

  it('keeps a start booked for the delivery (released by the schedule) rather than booking again', async () => {
    const hook = await webhook({ maxPerSecond: 1 });
    const { message, snapshot } = await delivery(hook);
    const rateAt = Date.now() + 200;
    expect(await gate.pass(message, 1, snapshot, hook, rateAt)).toEqual({ open: true, rateAt });
    expect(Date.now()).toBeGreaterThanOrEqual(rateAt - 5);
    // It booked nothing: the webhook's next start is free now.
    const rows = await admin.query(`SELECT 1 FROM delivery.webhook_rate WHERE webhook_id = $1`, [hook.id]);
    expect(rows.rowCount).toBe(0);
  });
});
