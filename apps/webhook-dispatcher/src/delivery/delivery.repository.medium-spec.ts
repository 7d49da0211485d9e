import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID, randomUUIDv7 } from 'node:crypto';
import { uuidV7Time } from '#domain';
import { dataSourceOptions, WEBHOOK_DISPATCHER_DATABASE } from '#persistence';
import { testEnv, uuidV7At } from '#testing';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { deliveryCreatedAt, type DeliveryRepository, type NewDelivery } from './delivery.repository.js';
import { deliveryRepository } from '../../test/attempt-record.fixture.js';

const HOUR = 3_600_000;

describe('deliveryCreatedAt', () => {
  const now = Date.parse('2026-11-26T12:00:00Z');
  it("dates a delivery by its event's version-7 id while the event is within an hour of now", () => {
    for (const offset of [-HOUR, -5_000, 0, 30_000, HOUR]) {
      expect(deliveryCreatedAt(uuidV7At(now + offset), now)).toEqual(new Date(now + offset));
    }
  });

  it('dates it now when the event is older or newer than that, or its id holds no time', () => {
    for (const eventId of [uuidV7At(now - HOUR - 1), uuidV7At(now + HOUR + 1), randomUUID()]) {
      expect(deliveryCreatedAt(eventId, now)).toEqual(new Date(now));
    }
  });
});

/**
 * One delivery per (event, webhook) in a table partitioned by day, whose key includes created_at: two dispatcher
 * processes that fan out one event write one row, and answer its id.
 */
describe('DeliveryRepository: one delivery per event and webhook (real PostgreSQL)', () => {
  const processes: DataSource[] = [];
  const repositories: DeliveryRepository[] = [];
  const admin = new pg.Pool({ connectionString: testEnv().databaseUrl, max: 2 });
  let merchantId: string;
  let webhookIds: string[];

  beforeAll(async () => {
    for (let i = 0; i < 2; i += 1) {
      const db = new DataSource(
        dataSourceOptions({ url: testEnv().databaseUrl, poolSize: 2, ...WEBHOOK_DISPATCHER_DATABASE }),
      );
      processes.push(await db.initialize());
      repositories.push(deliveryRepository(db));
    }
    merchantId = randomUUID();
    webhookIds = [randomUUID(), randomUUID()];
    await admin.query(`INSERT INTO merchant (id, name) VALUES ($1, 'M')`, [merchantId]);
    for (const id of webhookIds) {
      await admin.query(
        `INSERT INTO webhook (id, merchant_id, name, url, content_type, version, retry_on_error, events)
         VALUES ($1, $2, 'w', 'https://example.com/h', 'json', '2026-08-20', true, '{transaction}')`,
        [id, merchantId],
      );
    }
  });
  afterAll(async () => {
    for (const db of processes) await db.destroy();
    await admin.end();
  });

  /** The deliveries of one event to both webhooks, as a fan-out plans them (ids of its own). */
  const planned = (eventId: string): NewDelivery[] =>
    webhookIds.map((webhookId) => ({
      id: randomUUIDv7(),
      webhookId,
      merchantId,
      eventId,
      eventType: 'transaction',
      subject: { uuid: 'x' },
      url: 'https://example.com/h',
      contentType: 'json',
      version: '2026-08-20',
      retryOnError: true,
      body: '{"transaction":{}}',
    }));
  const rowsOf = async (eventId: string) =>
    (
      await admin.query<{ id: string; webhook_id: string; created_at: Date }>(
        'SELECT id, webhook_id, created_at FROM webhook_delivery WHERE event_id = $1 ORDER BY webhook_id',
        [eventId],
      )
    ).rows;

  it('two processes fanning out one event at once write one delivery per webhook, dated by the event', async () => {
    for (let round = 0; round < 5; round += 1) {
      const eventId = randomUUIDv7();
      const answers = await Promise.all(repositories.map((repository) => repository.createForEvent(planned(eventId))));
      const rows = await rowsOf(eventId);
      expect(rows.map((row) => row.webhook_id)).toEqual([...webhookIds].sort());
      expect(rows.map((row) => row.created_at.getTime())).toEqual([uuidV7Time(eventId), uuidV7Time(eventId)]);
      // Both answer the recorded ids: each process publishes those not attempted yet (at-least-once).
      for (const ids of answers) {
        expect(Object.fromEntries(ids)).toEqual(Object.fromEntries(rows.map((row) => [row.webhook_id, row.id])));
      }
    }
  });

  it('an event fanned out late, twice, keeps its first deliveries (their created_at differ)', async () => {
    const eventId = uuidV7At(Date.now() - 3 * HOUR);
    const first = await repositories[0].createForEvent(planned(eventId));
    await new Promise((resolve) => setTimeout(resolve, 20));
    const second = await repositories[1].createForEvent(planned(eventId));
    expect(Object.fromEntries(second)).toEqual(Object.fromEntries(first));
    expect(await rowsOf(eventId)).toHaveLength(2);
  });

  it('an event recorded before deliveries were dated by their event (at the fan-out) is found too', async () => {
    const eventId = randomUUIDv7();
    const [earlier] = planned(eventId);
    await admin.query(
      `INSERT INTO webhook_delivery (id, webhook_id, merchant_id, event_id, event_type, subject, url, content_type,
                                     version, retry_on_error, body, created_at)
       VALUES ($1, $2, $3, $4, 'transaction', '{}', 'https://example.com/h', 'json', '2026-08-20', true, '\\x7b7d',
               now() + interval '150 ms')`,
      [earlier.id, earlier.webhookId, merchantId, eventId],
    );
    const ids = await repositories[0].createForEvent(planned(eventId));
    expect(ids.get(earlier.webhookId)).toBe(earlier.id);
    expect(await rowsOf(eventId)).toHaveLength(2);
  });

  it("keeps the event's position with its delivery, for a message without a snapshot (a resend) to read", async () => {
    const [positioned, unknown] = [randomUUIDv7(), randomUUIDv7()];
    const a = await repositories[0].createForEvent(planned(positioned).map((d) => ({ ...d, position: 9_000_000_001 })));
    const b = await repositories[0].createForEvent(planned(unknown));
    const snapshot = await repositories[1].findSnapshot(a.get(webhookIds[0])!);
    expect(snapshot).toEqual({
      webhookId: webhookIds[0],
      eventId: positioned,
      eventType: 'transaction',
      subject: { uuid: 'x' },
      contentType: 'json',
      version: '2026-08-20',
      body: '{"transaction":{}}',
      position: 9_000_000_001,
    });
    // None known: none in the snapshot (not null, which a delivery message's contract refuses).
    expect(await repositories[1].findSnapshot(b.get(webhookIds[0])!)).not.toHaveProperty('position');
  });

  it("deletes a deleted webhook's rate schedule, health and recovers (each by its owner's repository), nothing of one that exists", async () => {
    const [gone, kept] = [randomUUID(), webhookIds[1]];
    const recoverOf = new Map([gone, kept].map((webhookId) => [webhookId, randomUUIDv7()]));
    for (const [webhookId, recoverId] of recoverOf) {
      await admin.query(`INSERT INTO webhook_rate (webhook_id, next_at) VALUES ($1, now())`, [webhookId]);
      await admin.query(`INSERT INTO webhook_health (webhook_id, last_attempt_at) VALUES ($1, now())`, [webhookId]);
      await admin.query(
        `INSERT INTO webhook_health_hour (webhook_id, hour, attempts, failures)
         VALUES ($1, date_trunc('hour', now()), 1, 1)`,
        [webhookId],
      );
      await admin.query(
        `INSERT INTO webhook_recover (id, webhook_id, merchant_id, since, state, total, started_at)
         VALUES ($1, $2, $3, now(), 'finished', 0, now())`,
        [recoverId, webhookId, merchantId],
      );
      await admin.query(`INSERT INTO webhook_recover_sent (recover_id, sent, at) VALUES ($1, 1, now())`, [recoverId]);
    }
    await repositories[0].deleteOfDeletedWebhook(gone);
    await repositories[0].deleteOfDeletedWebhook(kept);
    const left = async (webhookId: string) =>
      (
        await admin.query(
          `SELECT (SELECT count(*) FROM webhook_rate WHERE webhook_id = $1)::int AS rate,
                  (SELECT count(*) FROM webhook_health WHERE webhook_id = $1)::int AS health,
                  (SELECT count(*) FROM webhook_health_hour WHERE webhook_id = $1)::int AS hours,
                  (SELECT count(*) FROM webhook_recover WHERE webhook_id = $1)::int AS recovers,
                  (SELECT count(*) FROM webhook_recover_sent WHERE recover_id = $2)::int AS sent`,
          [webhookId, recoverOf.get(webhookId)],
        )
      ).rows[0];
    expect(await left(gone)).toEqual({ rate: 0, health: 0, hours: 0, recovers: 0, sent: 0 });
    expect(await left(kept)).toEqual({ rate: 1, health: 1, hours: 1, recovers: 1, sent: 1 });
  });
});
