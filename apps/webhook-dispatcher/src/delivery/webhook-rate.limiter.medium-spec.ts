import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID, randomUUIDv7 } from 'node:crypto';
import { dataSourceOptions, WEBHOOK_DISPATCHER_DATABASE } from '#persistence';
import { type OwnInfrastructure, provisionOwnInfrastructure } from '#testing';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { DatabaseRetry } from '../common/database-retry.js';
import { HOLD_MS, WebhookRateLimiter } from './webhook-rate.limiter.js';

/**
 * The webhook's rate limit kept in PostgreSQL (delivery.webhook_rate), shared by every process: two limiters over two
 * data sources stand for two dispatcher processes.
 * On a database of its own (provisionOwnInfrastructure): its bookings and schedule rows are seen by no other
 * suite's dispatcher.
 */
describe('WebhookRateLimiter (real PostgreSQL)', () => {
  let own: OwnInfrastructure;
  let admin: pg.Pool;
  const sources: DataSource[] = [];
  const limiters: WebhookRateLimiter[] = [];

  beforeAll(async () => {
    own = await provisionOwnInfrastructure('rate-limiter');
    admin = new pg.Pool({ connectionString: own.databaseUrl, max: 2 });
    for (let i = 0; i < 2; i += 1) {
      const db = await new DataSource(
        dataSourceOptions({ url: own.databaseUrl, poolSize: 4, ...WEBHOOK_DISPATCHER_DATABASE }),
      ).initialize();
      sources.push(db);
      limiters.push(new WebhookRateLimiter(db, new DatabaseRetry()));
    }
  });
  afterAll(async () => {
    for (const db of sources) await db.destroy();
    await admin?.end();
    await own?.teardown();
  });

  it('spaces the starts of a webhook 1/maxPerSecond apart, whichever process books them', async () => {
    const webhookId = randomUUID();
    const booked = [];
    for (let i = 0; i < 6; i += 1) booked.push(await limiters[i % 2].tryBook(webhookId, 10));
    expect(booked.every((b) => b !== null)).toBe(true);
    const starts = booked.map((b) => b!.at);
    for (let i = 1; i < starts.length; i += 1) expect(starts[i] - starts[i - 1]).toBeCloseTo(100, -1);
    // The first starts now; each later one waits for its start.
    expect(booked[0]!.waitMs).toBeLessThan(50);
    expect(booked[5]!.waitMs).toBeGreaterThan(400);
  });

  it('books no start more than HOLD_MS ahead: the delivery waits in the schedule instead', async () => {
    const webhookId = randomUUID();
    // 2 a second: the third booking is 1 s ahead, at the edge; later ones are beyond it.
    const answers = [];
    for (let i = 0; i < 5; i += 1) answers.push(await limiters[0].tryBook(webhookId, 2));
    expect(answers.slice(0, 3).every((a) => a !== null)).toBe(true);
    expect(answers[2]!.waitMs).toBeLessThanOrEqual(HOLD_MS);
    expect(answers.slice(3)).toEqual([null, null]);
    // `book` (a stale start at the head of its line) books however far ahead.
    const late = await limiters[1].book(webhookId, 2);
    expect(late.at - answers[2]!.at).toBeCloseTo(500, -1);
  });

  it('books nothing while a delivery of the webhook waits in the schedule, due now (it goes first)', async () => {
    const webhookId = randomUUID();
    const deliveryId = randomUUIDv7();
    await admin.query(
      `INSERT INTO delivery.delivery_wait (webhook_id, delivery_id, attempt, manual, message, traceparent, not_before)
       VALUES ($1, $2, 1, false, $3, null, clock_timestamp() - interval '1 second')`,
      [webhookId, deliveryId, JSON.stringify({ v: 1, deliveryId, snapshot: { webhookId } })],
    );
    expect(await limiters[0].tryBook(webhookId, 1_000)).toBeNull();
    // Another webhook is not held by it.
    expect(await limiters[0].tryBook(randomUUID(), 1_000)).not.toBeNull();
    await admin.query(`DELETE FROM delivery.delivery_wait WHERE webhook_id = $1`, [webhookId]);
    expect(await limiters[0].tryBook(webhookId, 1_000)).not.toBeNull();
  });

  it('hands a window of starts to one transaction and moves the next start past those used', async () => {
    const webhookId = randomUUID();
    const runner = sources[0].createQueryRunner();
    await runner.connect();
    try {
      await runner.startTransaction();
      // 10 a second over 1 s: now and every 100 ms, 11 starts, at most 5 wanted.
      const window = await limiters[0].bookWindow(runner, webhookId, 10, 1_000, 5);
      expect(window.count).toBe(5);
      expect(window.intervalMs).toBe(100);
      expect(Math.abs(window.firstAt - Date.now())).toBeLessThan(1_000);
      await limiters[0].commitWindow(runner, webhookId, window.firstAt + 5 * window.intervalMs);
      await runner.commitTransaction();
    } finally {
      await runner.release();
    }
    const next = await limiters[1].book(webhookId, 10);
    expect(next.waitMs).toBeGreaterThan(300);
  });
});
