import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID, randomUUIDv7 } from 'node:crypto';
import { uuidV7Time } from '#domain';
import { dataSourceOptions, WEBHOOK_DISPATCHER_DATABASE } from '#persistence';
import { testEnv, uuidV7At } from '#testing';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { DatabaseRetry } from '../common/database-retry.js';
import { deliveryCreatedAt, DeliveryRepository, type NewDelivery } from './delivery.repository.js';

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
      repositories.push(new DeliveryRepository(db, new DatabaseRetry()));
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
});
