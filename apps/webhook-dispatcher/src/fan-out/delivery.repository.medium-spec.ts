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

/**
 * What a recover sends again (recoverable): the webhook's deliveries since a time whose latest entry is failed or
 * skipped — also near the retention edge, in the oldest day partition kept, and across a day boundary.
 */
describe('DeliveryRepository.recoverable (real PostgreSQL)', () => {
  const DAY = 24 * HOUR;
  const admin = new pg.Pool({ connectionString: testEnv().databaseUrl, max: 2 });
  let db: DataSource;
  let repository: DeliveryRepository;
  const merchantId = randomUUID();
  const webhookId = randomUUID();
  /** 29 days and 20 hours ago: inside the default 30 days, in the oldest partitions kept. */
  const edge = Date.now() - 29 * DAY - 20 * HOUR;

  /** A delivery created `at` with log entries (outcome, minutes after it). */
  async function delivery(at: number, entries: Array<[outcome: string, afterMinutes: number]>): Promise<string> {
    const id = uuidV7At(at);
    await admin.query(
      `INSERT INTO webhook_delivery (id, webhook_id, merchant_id, event_id, event_type, subject, url, content_type,
                                     version, retry_on_error, body, created_at)
       VALUES ($1, $2, $3, $4, 'transaction', '{"uuid":"x"}', 'https://example.com/h', 'json', '2026-08-20', true,
               '\\x7b7d', $5)`,
      [id, webhookId, merchantId, uuidV7At(at), new Date(at)],
    );
    for (const [i, [outcome, after]] of entries.entries()) {
      const loggedAt = at + after * 60_000;
      await admin.query(
        `INSERT INTO webhook_log (id, delivery_id, webhook_id, attempt, event_type, event_id, request, outcome, status,
                                  duration_ms, created_at)
         VALUES ($1, $2, $3, $4, 'transaction', gen_random_uuid(), '{}', $5, $6, 5, $7)`,
        [
          uuidV7At(loggedAt),
          id,
          webhookId,
          i + 1,
          outcome,
          outcome === 'delivered' ? 200 : outcome === 'failed' ? 500 : null,
          new Date(loggedAt),
        ],
      );
    }
    return id;
  }

  beforeAll(async () => {
    db = await new DataSource(
      dataSourceOptions({ url: testEnv().databaseUrl, poolSize: 2, ...WEBHOOK_DISPATCHER_DATABASE }),
    ).initialize();
    repository = new DeliveryRepository(db, new DatabaseRetry());
    // The days near the edge: another suite's maintenance, with a short retention, may have dropped them meanwhile.
    const utcDay = (time: number) => new Date(time).toISOString().slice(0, 10);
    await admin.query('SELECT delivery.create_day_partitions($1::date, $2::date)', [
      utcDay(edge - 2 * DAY),
      utcDay(edge + 3 * DAY),
    ]);
    await admin.query(`INSERT INTO merchant (id, name) VALUES ($1, 'M')`, [merchantId]);
    await admin.query(
      `INSERT INTO webhook (id, merchant_id, name, url, content_type, version, retry_on_error, events)
       VALUES ($1, $2, 'w', 'https://example.com/h', 'json', '2026-08-20', true, '{transaction}')`,
      [webhookId, merchantId],
    );
  });
  afterAll(async () => {
    await db.destroy();
    await admin.end();
  });

  it('finds exactly the failed and skipped ones since the time, from the oldest partition on, oldest first, by page', async () => {
    const before = await delivery(edge - HOUR, [['failed', 1]]);
    const failedAtEdge = await delivery(edge, [['failed', 1]]);
    // Failed on its day, its repeat the next day (across midnight), still failed: its latest entry counts.
    const failedAcrossDays = await delivery(edge + 2 * HOUR, [
      ['failed', 1],
      ['failed', 26 * 60],
    ]);
    await delivery(edge + 3 * HOUR, [
      ['failed', 1],
      ['delivered', 60],
    ]);
    const skipped = await delivery(edge + 4 * HOUR, [['skipped', 0]]);
    await delivery(edge + 5 * HOUR, [['delivered', 1]]);
    const recent = await delivery(Date.now() - HOUR, [['failed', 1]]);

    const since = new Date(edge - 1);
    const all = await repository.recoverable(webhookId, since, undefined, 100);
    expect(all.map((row) => row.id)).toEqual([failedAtEdge, failedAcrossDays, skipped, recent]);
    expect(all.map((row) => row.id)).not.toContain(before);
    // Page by page, after the previous page's last.
    const first = await repository.recoverable(webhookId, since, undefined, 2);
    const last = first.at(-1)!;
    const second = await repository.recoverable(webhookId, since, { createdAt: last.created_at, id: last.id }, 2);
    expect([...first, ...second].map((row) => row.id)).toEqual(all.map((row) => row.id));
  });

  it('leaves out a delivery whose manual attempt is taken and not yet logged: a recover that comes back after its process stopped sends it once', async () => {
    const since = new Date(Date.now() - 2 * HOUR);
    const failed = await delivery(Date.now() - HOUR, [
      ['failed', 1],
      ['failed', 2],
    ]);
    expect((await repository.recoverable(webhookId, since, undefined, 100)).map((row) => row.id)).toContain(failed);

    // The first recover takes its manual attempt (3) and queues it; the process stops before it is made.
    const taken = await repository.takeManualAttempt(failed, webhookId, 50, async () => undefined);
    expect(taken).toEqual({ attempt: 3 });
    expect((await repository.recoverable(webhookId, since, undefined, 100)).map((row) => row.id)).not.toContain(failed);

    // Made and logged, failed again: a later recover sends it once more.
    await admin.query(
      `INSERT INTO webhook_log (id, delivery_id, webhook_id, attempt, event_type, event_id, request, outcome, status,
                                duration_ms, manual, created_at)
       VALUES (gen_random_uuid(), $1, $2, 3, 'transaction', gen_random_uuid(), '{}', 'failed', 500, 5, true, now())`,
      [failed, webhookId],
    );
    expect((await repository.recoverable(webhookId, since, undefined, 100)).map((row) => row.id)).toContain(failed);
  });
});
