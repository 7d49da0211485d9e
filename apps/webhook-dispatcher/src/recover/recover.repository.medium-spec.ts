import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID, randomUUIDv7 } from 'node:crypto';
import { dataSourceOptions, type LogOutcome, WEBHOOK_DISPATCHER_DATABASE } from '#persistence';
import { testEnv, uuidV7At } from '#testing';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { DatabaseRetry } from '../common/database-retry.js';
import type { DeliveryLogWriter } from '../delivery/delivery-log.writer.js';
import type { DeliveryRepository } from '../delivery/delivery.repository.js';
import { RecoverRepository, type RecoverRow } from './recover.repository.js';
import { attemptRecord, deliveryLogWriter, deliveryRepository } from '../../test/attempt-record.fixture.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/**
 * A recover's selection and its job's bookkeeping, on a real migrated database: what it sends (the deliveries since a
 * time whose latest outcome is failed or skipped, kept by the log writer as `recoverable`, also at the retention
 * edge and across midnight), in batches at its place, one running per webhook, and what it finds taken and never
 * attempted after its process stopped.
 */
describe('RecoverRepository (real PostgreSQL)', () => {
  const admin = new pg.Pool({ connectionString: testEnv().databaseUrl, max: 2 });
  let db: DataSource;
  let recovers: RecoverRepository;
  let deliveries: DeliveryRepository;
  let log: DeliveryLogWriter;
  const merchantId = randomUUID();
  /** 29 days and 20 hours ago: inside the default 30 days, in the oldest partitions kept. */
  const edge = Date.now() - 29 * DAY - 20 * HOUR;
  const owner = 'medium-spec';

  async function newWebhook(): Promise<string> {
    const id = randomUUID();
    await admin.query(
      `INSERT INTO webhook (id, merchant_id, name, url, content_type, version, retry_on_error, events)
       VALUES ($1, $2, 'w', 'https://example.com/h', 'json', '2026-08-20', true, '{transaction}')`,
      [id, merchantId],
    );
    return id;
  }

  /** Logs an attempt through the dispatcher's log writer, `at` (ms). */
  const logAttempt = (
    webhookId: string,
    deliveryId: string,
    attempt: number,
    outcome: LogOutcome,
    at: number,
    manual = false,
    recoverId?: string,
  ) => log.write(attemptRecord({ webhookId, deliveryId, attempt, outcome, at }, { manual, recoverId }));

  /** A delivery created `at` with log entries (outcome, minutes after it), written by the log writer. */
  async function delivery(webhookId: string, at: number, entries: Array<[outcome: LogOutcome, afterMinutes: number]>) {
    const id = uuidV7At(at);
    await admin.query(
      `INSERT INTO webhook_delivery (id, webhook_id, merchant_id, event_id, event_type, subject, url, content_type,
                                     version, retry_on_error, body, created_at)
       VALUES ($1, $2, $3, $4, 'transaction', '{"uuid":"x"}', 'https://example.com/h', 'json', '2026-08-20', true,
               '\\x7b7d', $5)`,
      [id, webhookId, merchantId, uuidV7At(at), new Date(at)],
    );
    for (const [i, [outcome, after]] of entries.entries())
      await logAttempt(webhookId, id, i + 1, outcome, at + after * 60_000);
    return id;
  }

  async function startAndClaim(webhookId: string, since: Date): Promise<RecoverRow> {
    const id = randomUUIDv7();
    expect(await recovers.start({ id, webhookId, merchantId, since })).toBe('started');
    const claimed = await recovers.claim(owner, 30_000);
    expect(claimed?.id).toBe(id);
    return claimed!;
  }

  /** Takes batches of `size` until none is left: the deliveries taken, in order. */
  async function takeAll(recover: RecoverRow, size: number): Promise<string[]> {
    const taken: string[] = [];
    while (!recover.queuedAll) {
      const batch = await recovers.takeBatch(recover, owner, size);
      taken.push(...batch!.taken.map((attempt) => attempt.deliveryId));
    }
    return taken;
  }

  beforeAll(async () => {
    db = await new DataSource(
      dataSourceOptions({ url: testEnv().databaseUrl, poolSize: 2, ...WEBHOOK_DISPATCHER_DATABASE }),
    ).initialize();
    const retry = new DatabaseRetry();
    recovers = new RecoverRepository(db, retry);
    deliveries = deliveryRepository(db, retry);
    // Health reports are not what this suite is about: nobody is told.
    log = deliveryLogWriter(db, retry);
    // The days near the edge: another suite's maintenance, with a short retention, may have dropped them meanwhile.
    const utcDay = (time: number) => new Date(time).toISOString().slice(0, 10);
    await admin.query('SELECT delivery.create_day_partitions($1::date, $2::date)', [
      utcDay(edge - 2 * DAY),
      utcDay(edge + 3 * DAY),
    ]);
    await admin.query(`INSERT INTO merchant (id, name) VALUES ($1, 'M')`, [merchantId]);
  });
  afterAll(async () => {
    // Its recovers are left running by some tests: cancelled, so that no dispatcher of a later suite of the run (the
    // same database) takes one over after its lease and sends to webhooks that have no secret.
    await admin.query(
      `UPDATE webhook_recover SET state = 'cancelled', finished_at = now() WHERE merchant_id = $1 AND state = 'running'`,
      [merchantId],
    );
    await log.onApplicationShutdown();
    await db.destroy();
    await admin.end();
  });

  it('counts and takes exactly the failed and skipped ones since the time, from the oldest partition on, oldest first, batch by batch', async () => {
    const webhookId = await newWebhook();
    const before = await delivery(webhookId, edge - HOUR, [['failed', 1]]);
    const failedAtEdge = await delivery(webhookId, edge, [['failed', 1]]);
    // Failed on its day, its repeat the next day (across midnight), still failed: its latest entry counts.
    const failedAcrossDays = await delivery(webhookId, edge + 2 * HOUR, [
      ['failed', 1],
      ['failed', 26 * 60],
    ]);
    await delivery(webhookId, edge + 3 * HOUR, [
      ['failed', 1],
      ['delivered', 60],
    ]);
    const skipped = await delivery(webhookId, edge + 4 * HOUR, [['skipped', 0]]);
    await delivery(webhookId, edge + 5 * HOUR, [['delivered', 1]]);
    const recent = await delivery(webhookId, Date.now() - HOUR, [['failed', 1]]);

    const recover = await startAndClaim(webhookId, new Date(edge - 1));
    expect(recover.total).toBe(4);
    const taken = await takeAll(recover, 2);
    expect(taken).toEqual([failedAtEdge, failedAcrossDays, skipped, recent]);
    expect(taken).not.toContain(before);
    expect(recover.queued).toBe(4);
    // Each got its next manual attempt, numbered above every attempt logged.
    const [row] = await admin
      .query(
        `SELECT d.last_manual_attempt, o.recover_id
           FROM webhook_delivery d JOIN webhook_delivery_outcome o ON o.delivery_id = d.id AND o.created_at = d.created_at
          WHERE d.id = $1`,
        [failedAcrossDays],
      )
      .then((r) => r.rows);
    expect(row).toEqual({ last_manual_attempt: 3, recover_id: recover.id });
  });

  it('takes each delivery once when their times have microseconds (its place is kept to the microsecond)', async () => {
    const webhookId = await newWebhook();
    const at = Date.now() - HOUR;
    const ids: string[] = [];
    for (let i = 0; i < 9; i += 1) {
      const id = await delivery(webhookId, at + i, [['failed', 1]]);
      // 0.4 ms past its millisecond, as a delivery created at the database's now() is: a place kept as a JS Date
      // (milliseconds) fell before each batch's last delivery, and the next batch took it again.
      await admin.query(
        `UPDATE webhook_delivery SET created_at = created_at + interval '400 microseconds' WHERE id = $1`,
        [id],
      );
      await admin.query(
        `UPDATE webhook_delivery_outcome SET created_at = created_at + interval '400 microseconds'
          WHERE delivery_id = $1`,
        [id],
      );
      ids.push(id);
    }
    const recover = await startAndClaim(webhookId, new Date(at - 1));
    expect(await takeAll(recover, 2)).toEqual(ids);
    // Claimed again (the place read back from the database), nothing is left to take.
    await recovers.release(recover.id, owner);
    const again = await recovers.claim(owner, 30_000);
    expect(again?.id).toBe(recover.id);
    expect((await recovers.takeBatch(again!, owner, 10))!.taken).toEqual([]);
  });

  it('keeps a delivery recoverable by its newest entry, whatever order the entries are written in', async () => {
    const webhookId = await newWebhook();
    const at = Date.now() - HOUR;
    const id = await delivery(webhookId, at, []);
    // The repeat's success is written before the first attempt's failure (two processes, two batches).
    await logAttempt(webhookId, id, 2, 'delivered', at + 120_000);
    await logAttempt(webhookId, id, 1, 'failed', at + 60_000);
    const recover = await startAndClaim(webhookId, new Date(at - 1));
    expect(recover.total).toBe(0);
    expect(await takeAll(recover, 10)).toEqual([]);
  });

  it('numbers its attempt above every attempt logged, in whatever order, and leaves out a delivery at its attempt cap', async () => {
    const webhookId = await newWebhook();
    const at = Date.now() - HOUR;
    const repeated = await delivery(webhookId, at, []);
    // Attempts 3, 1 and a resend's 6 written in that order (several processes, several batches), attempt 2 not at all.
    await logAttempt(webhookId, repeated, 3, 'failed', at + 180_000);
    await logAttempt(webhookId, repeated, 1, 'failed', at + 60_000);
    await logAttempt(webhookId, repeated, 6, 'failed', at + 240_000, true);
    // 49 automatic attempts and one manual: MAX_ATTEMPTS_PER_DELIVERY (50) reached.
    const capped = await delivery(webhookId, at + 1_000, []);
    await admin.query(`UPDATE webhook_delivery SET manual_attempts = 1 WHERE id = $1`, [capped]);
    await logAttempt(webhookId, capped, 49, 'failed', at + 300_000);
    await logAttempt(webhookId, capped, 1, 'failed', at + 60_000);

    const recover = await startAndClaim(webhookId, new Date(at - 1));
    expect(recover.total).toBe(2);
    const batch = await recovers.takeBatch(recover, owner, 10);
    expect(batch!.taken.map(({ deliveryId, attempt }) => ({ deliveryId, attempt }))).toEqual([
      { deliveryId: repeated, attempt: 7 },
    ]);
    expect(batch!.read).toBe(2);
  });

  it('runs one recover per webhook at a time; the same start again is the same recover', async () => {
    const webhookId = await newWebhook();
    await delivery(webhookId, Date.now() - HOUR, [['failed', 1]]);
    const id = randomUUIDv7();
    const since = new Date(Date.now() - 2 * HOUR);
    expect(await recovers.start({ id, webhookId, merchantId, since })).toBe('started');
    expect(await recovers.start({ id, webhookId, merchantId, since })).toBe('started');
    expect(await recovers.start({ id: randomUUIDv7(), webhookId, merchantId, since })).toBe('refused');
    const [{ count }] = (
      await admin.query(`SELECT count(*)::int AS count FROM webhook_recover WHERE webhook_id = $1`, [webhookId])
    ).rows;
    expect(count).toBe(1);
    // Cancelled: nothing more is taken, and the next recover may start.
    expect(await recovers.cancel(webhookId, null, 'requested')).toEqual([id]);
    expect(await recovers.stateOf(id)).toBe('cancelled');
    expect(await recovers.start({ id: randomUUIDv7(), webhookId, merchantId, since })).toBe('started');
    await recovers.cancel(webhookId, null, 'requested'); // not claimed by the tests after this one
  });

  it('refuses a recover of a disabled webhook', async () => {
    const webhookId = await newWebhook();
    await admin.query(`UPDATE webhook SET enabled = false, disabled_reason = 'manual' WHERE id = $1`, [webhookId]);
    expect(
      await recovers.start({ id: randomUUIDv7(), webhookId, merchantId, since: new Date(Date.now() - HOUR) }),
    ).toBe('refused');
  });

  it('takes nothing for a cancelled recover', async () => {
    const webhookId = await newWebhook();
    await delivery(webhookId, Date.now() - HOUR, [['failed', 1]]);
    const recover = await startAndClaim(webhookId, new Date(Date.now() - 2 * HOUR));
    await recovers.cancel(webhookId, recover.id, 'disabled');
    expect(await recovers.takeBatch(recover, owner, 10)).toBeUndefined();
    expect(await recovers.renew(recover.id, owner, 30_000)).toBeUndefined();
  });

  it("leaves out a delivery whose resend is on its way, and takes a cancelled recover's deliveries again", async () => {
    const webhookId = await newWebhook();
    const since = new Date(Date.now() - 2 * HOUR);
    const resent = await delivery(webhookId, Date.now() - HOUR, [['failed', 1]]);
    const other = await delivery(webhookId, Date.now() - HOUR + 1_000, [['failed', 1]]);
    expect(await deliveries.takeManualAttempt(resent, webhookId, 50, async () => undefined)).toEqual({ attempt: 2 });

    const first = await startAndClaim(webhookId, since);
    expect(await takeAll(first, 10)).toEqual([other]);
    // Cancelled before `other` was attempted: the next recover takes it again; the resend is still on its way.
    await recovers.cancel(webhookId, first.id, 'requested');
    const second = await startAndClaim(webhookId, since);
    expect(await takeAll(second, 10)).toEqual([other]);
    // The resend was made and failed: a later recover sends it too.
    await logAttempt(webhookId, resent, 2, 'failed', Date.now(), true);
    await recovers.cancel(webhookId, second.id, 'requested');
    const third = await startAndClaim(webhookId, since);
    expect(await takeAll(third, 10)).toEqual([resent, other]);
  });

  it('finds what it took and never got attempted (its process stopped), and forgets each one once it is logged', async () => {
    const webhookId = await newWebhook();
    const at = Date.now() - HOUR;
    const ids = [];
    for (let i = 0; i < 5; i += 1) ids.push(await delivery(webhookId, at + i * 1_000, [['failed', 1]]));
    const recover = await startAndClaim(webhookId, new Date(at - 1));
    const batch = await recovers.takeBatch(recover, owner, 3);
    expect(batch!.taken.map((attempt) => attempt.deliveryId)).toEqual(ids.slice(0, 3));
    // The first was made (delivered), the second made and failed again; the third never.
    await logAttempt(webhookId, ids[0], 2, 'delivered', Date.now(), true, recover.id);
    await logAttempt(webhookId, ids[1], 2, 'failed', Date.now(), true, recover.id);
    const fresh = (await recovers.renew(recover.id, owner, 30_000))!;
    expect(fresh.sent).toBe(2);
    expect(await recovers.unsent(fresh)).toEqual([{ deliveryId: ids[2], attempt: 2 }]);
    expect(fresh.queued).toBe(3);
    // Logged attempts are no longer marked as the recover's (a takeover's scan reads only what is on its way), even
    // the one that failed again and stays recoverable.
    const { rows } = await admin.query(
      `SELECT delivery_id AS id, recoverable, recover_id FROM webhook_delivery_outcome
        WHERE delivery_id = ANY($1) ORDER BY delivery_id`,
      [ids.slice(0, 3)],
    );
    expect(rows).toEqual([
      { id: ids[0], recoverable: false, recover_id: null },
      { id: ids[1], recoverable: true, recover_id: null },
      { id: ids[2], recoverable: true, recover_id: recover.id },
    ]);
  });
});
