import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import type { LogOutcome } from '#persistence';
import { uuidV7At } from '#testing';
import type pg from 'pg';
import { DatabaseRetry } from '../common/database-retry.js';
import type { HealthRow } from '../webhook-health/webhook-health.monitor.js';
import type { AttemptRecord, DeliveryLogWriter } from './delivery-log.writer.js';
import { attemptRecord, deliveryLogWriter } from '../../test/attempt-record.fixture.js';
import { dispatcherSpecInfrastructure, type DispatcherSpecInfrastructure } from '../../test/spec-infrastructure.js';

const MINUTE = 60_000;

/**
 * The log writer's batch: one transaction in which each table is written by its owner (the log, the outcomes and the
 * subjects' newest here; the health and its hours by WebhookHealthRepository; the recovers' sent counts by
 * RecoverRepository), counting only the entries the log actually took. On a database of its own.
 */
describe('DeliveryLogWriter (real PostgreSQL)', () => {
  let infra: DispatcherSpecInfrastructure;
  let admin: pg.Pool;
  let writer: DeliveryLogWriter;
  const observed: HealthRow[][] = [];
  const merchantId = randomUUID();

  beforeAll(async () => {
    infra = await dispatcherSpecInfrastructure('delivery-log-writer');
    admin = infra.admin;
    writer = deliveryLogWriter(infra.db, new DatabaseRetry(), {
      observe: async (rows: HealthRow[]) => void observed.push(rows),
    });
  });
  afterAll(async () => {
    await writer?.onApplicationShutdown();
    await infra?.close();
  });

  /** A delivery row of `webhookId` created `at` (ms): the outcome row is kept only for a delivery that exists. */
  async function delivery(webhookId: string, at: number): Promise<string> {
    const id = uuidV7At(at);
    await admin.query(
      `INSERT INTO webhook_delivery (id, webhook_id, merchant_id, event_id, event_type, subject, url, content_type,
                                     version, retry_on_error, body, created_at)
       VALUES ($1, $2, $3, $4, 'transaction', '{"uuid":"x"}', 'https://example.com/h', 'json', '2026-08-20', true,
               '\\x7b7d', $5)`,
      [id, webhookId, merchantId, randomUUID(), new Date(at)],
    );
    return id;
  }

  /** The records as one batch (written within the writer's linger): resolves when all are written or one failed. */
  const writeBatch = (records: AttemptRecord[]) => Promise.allSettled(records.map((record) => writer.write(record)));

  async function healthOf(webhookId: string) {
    const { rows } = await admin.query(
      `SELECT last_attempt_at, last_success_at, failing_since, failures_in_a_row, gone_at
         FROM webhook_health WHERE webhook_id = $1`,
      [webhookId],
    );
    return rows[0] as
      | {
          last_attempt_at: Date;
          last_success_at: Date | null;
          failing_since: Date | null;
          failures_in_a_row: number;
          gone_at: Date | null;
        }
      | undefined;
  }

  async function hoursOf(webhookId: string) {
    const { rows } = await admin.query(
      `SELECT sum(attempts)::int AS attempts, sum(failures)::int AS failures
         FROM webhook_health_hour WHERE webhook_id = $1`,
      [webhookId],
    );
    return rows[0] as { attempts: number | null; failures: number | null };
  }

  async function sentOf(recoverId: string): Promise<number | undefined> {
    const { rows } = await admin.query(`SELECT sent FROM webhook_recover_sent WHERE recover_id = $1`, [recoverId]);
    return rows[0]?.sent;
  }

  async function logged(webhookId: string): Promise<number> {
    const { rows } = await admin.query(`SELECT count(*)::int AS n FROM webhook_log WHERE webhook_id = $1`, [webhookId]);
    return rows[0].n;
  }

  it('counts the health, its hours and a recover’s sent attempts once when a batch is written again', async () => {
    const webhookId = randomUUID();
    const recoverId = randomUUID();
    const start = Date.now() - 10 * MINUTE;
    const deliveries = [await delivery(webhookId, start), await delivery(webhookId, start + 1)];
    const entry = (deliveryId: string, attempt: number, outcome: LogOutcome, minutes: number, recovered = false) =>
      attemptRecord(
        { webhookId, deliveryId, attempt, outcome, at: start + minutes * MINUTE },
        recovered ? { manual: true, recoverId } : {},
      );
    const batch = [
      entry(deliveries[0], 1, 'failed', 1),
      entry(deliveries[1], 1, 'failed', 2),
      entry(deliveries[0], 2, 'failed', 3, true),
      entry(deliveries[1], 2, 'failed', 4, true),
      entry(deliveries[0], 3, 'skipped', 5),
    ];
    expect((await writeBatch(batch)).map((result) => result.status)).toEqual(batch.map(() => 'fulfilled'));
    const health = await healthOf(webhookId);
    expect(health).toMatchObject({
      failing_since: new Date(start + MINUTE),
      failures_in_a_row: 4,
      last_success_at: null,
      last_attempt_at: new Date(start + 4 * MINUTE),
    });
    expect(await hoursOf(webhookId)).toEqual({ attempts: 4, failures: 4 });
    expect(await sentOf(recoverId)).toBe(2);

    // Written again (its acks were lost, say): the log takes none of it, nothing is counted twice.
    expect((await writeBatch(batch)).map((result) => result.status)).toEqual(batch.map(() => 'fulfilled'));
    // And again, with one entry of it and a new one: only the new one counts.
    const more = entry(deliveries[1], 3, 'failed', 6, true);
    expect((await writeBatch([batch[3], more])).map((result) => result.status)).toEqual(['fulfilled', 'fulfilled']);
    expect(await logged(webhookId)).toBe(6);
    expect(await healthOf(webhookId)).toMatchObject({ failing_since: new Date(start + MINUTE), failures_in_a_row: 5 });
    expect(await hoursOf(webhookId)).toEqual({ attempts: 5, failures: 5 });
    expect(await sentOf(recoverId)).toBe(3);
    // The monitor saw the failing webhook (once per batch that changed its health).
    expect(
      observed
        .flat()
        .filter((row) => row.webhook_id === webhookId)
        .map((row) => row.failures_in_a_row),
    ).toEqual([4, 5]);
  });

  it('writes a batch all or nothing: a row that fails in another module’s statement fails alone', async () => {
    const webhookId = randomUUID();
    const recoverId = randomUUID();
    const start = Date.now() - 10 * MINUTE;
    const [one, two] = [await delivery(webhookId, start), await delivery(webhookId, start + 1)];
    // Its sent count cannot grow (integer out of range): the recover's statement fails for this row alone.
    await admin.query(`INSERT INTO webhook_recover_sent (recover_id, sent, at) VALUES ($1, 2147483647, now())`, [
      recoverId,
    ]);
    const good = attemptRecord({ webhookId, deliveryId: one, attempt: 1, outcome: 'failed', at: start + MINUTE });
    const bad = attemptRecord(
      { webhookId, deliveryId: two, attempt: 2, outcome: 'failed', at: start + 2 * MINUTE },
      { manual: true, recoverId },
    );
    const results = await writeBatch([good, bad]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected']);
    // The good row written by itself after the batch failed; of the bad one nothing, in any table.
    expect(await logged(webhookId)).toBe(1);
    expect(await healthOf(webhookId)).toMatchObject({ failing_since: new Date(start + MINUTE), failures_in_a_row: 1 });
    expect(await hoursOf(webhookId)).toEqual({ attempts: 1, failures: 1 });
    const { rows: outcomes } = await admin.query(
      `SELECT delivery_id FROM webhook_delivery_outcome WHERE webhook_id = $1`,
      [webhookId],
    );
    expect(outcomes.map((row: { delivery_id: string }) => row.delivery_id)).toEqual([one]);
  });

  it('leaves the outcome’s attempt numbers and state right whatever order the entries are written in', async () => {
    const webhookId = randomUUID();
    const start = Date.now() - 10 * MINUTE;
    const id = await delivery(webhookId, start);
    const entry = (attempt: number, outcome: LogOutcome, minutes: number, manual = false) =>
      attemptRecord({ webhookId, deliveryId: id, attempt, outcome, at: start + minutes * MINUTE }, { manual });
    // Attempts 1–3 failed, then a resend (manual 4) delivered: written newest first, one batch each, then two at once.
    await writeBatch([entry(4, 'delivered', 4, true)]);
    await writeBatch([entry(3, 'failed', 3)]);
    await writeBatch([entry(1, 'failed', 1), entry(2, 'failed', 2)]);
    const { rows } = await admin.query(
      `SELECT recoverable, outcome_at, automatic_top, top_attempt, manual_top
         FROM webhook_delivery_outcome WHERE delivery_id = $1`,
      [id],
    );
    expect(rows).toEqual([
      {
        recoverable: false,
        outcome_at: new Date(start + 4 * MINUTE),
        automatic_top: 3,
        top_attempt: 4,
        manual_top: 4,
      },
    ]);
    // The health by the attempts' times: the resend's success is the latest, nothing failing.
    expect(await healthOf(webhookId)).toMatchObject({
      last_success_at: new Date(start + 4 * MINUTE),
      failing_since: null,
      failures_in_a_row: 0,
    });
  });

  it('counts the failures after a success logged late again from the log, the batch’s own among them once', async () => {
    const webhookId = randomUUID();
    const start = Date.now() - 10 * MINUTE;
    const entry = (attempt: number, outcome: LogOutcome, minutes: number) =>
      attemptRecord({ webhookId, deliveryId: randomUUID(), attempt, outcome, at: start + minutes * MINUTE });
    // Failures at 1 and 3 stored; then a success at 2 (logged late) with a failure at 4 in one batch.
    await writeBatch([entry(1, 'failed', 1), entry(1, 'failed', 3)]);
    expect(await healthOf(webhookId)).toMatchObject({ failing_since: new Date(start + MINUTE), failures_in_a_row: 2 });
    await writeBatch([entry(1, 'delivered', 2), entry(1, 'failed', 4)]);
    expect(await healthOf(webhookId)).toMatchObject({
      last_success_at: new Date(start + 2 * MINUTE),
      failing_since: new Date(start + 3 * MINUTE),
      failures_in_a_row: 2,
    });
    expect(await hoursOf(webhookId)).toEqual({ attempts: 4, failures: 3 });
  });
});
