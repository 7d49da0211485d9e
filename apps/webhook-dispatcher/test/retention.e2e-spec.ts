import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { Logger, type INestApplication } from '@nestjs/common';
import {
  AmqpClient,
  ATTEMPT_HEADER,
  EXCHANGES,
  GUARD_HEADER,
  ROUTING_KEYS,
  publishDispatcherCommand,
  type DeliverySnapshot,
} from '#messaging';
import { PlatformMetrics } from '#platform';
import { uuidV7At, waitFor } from '#testing';
import { DispatcherMetrics } from '../src/metrics/dispatcher.metrics.js';
import { PartitionMaintenanceMetrics } from '../src/retention/partition-maintenance.metrics.js';
import {
  MAINTENANCE_LOCK_KEY,
  PartitionMaintenance,
  type MaintenanceReport,
} from '../src/retention/partition-maintenance.service.js';
import {
  Receiver,
  closeDb,
  createMerchant,
  createWebhook,
  db,
  logsOf,
  renderedBody,
  startDispatcher,
  testAmqp,
  transactionEvent,
  publishDelivery,
} from './dispatcher.harness.js';

const DAY = 86_400_000;
/** Midnight (UTC) starting the day `offset` days from today. */
const dayStart = (offset: number) => Math.floor(Date.now() / DAY) * DAY + offset * DAY;
/** The partitions' name of a day: `20261126`. */
const dayName = (time: number) => new Date(time).toISOString().slice(0, 10).replaceAll('-', '');
const names = (offset: number) => [
  `webhook_delivery_p${dayName(dayStart(offset))}`,
  `webhook_log_p${dayName(dayStart(offset))}`,
  `webhook_delivery_outcome_p${dayName(dayStart(offset))}`,
];

/** Every day partition, by name. */
const partitions = async () =>
  (await db().query<{ name: string }>('SELECT name FROM day_partitions() ORDER BY name')).rows.map((r) => r.name);

/** Creates the partitions of a day the way the maintenance does (as the owner), for rows a test writes in the past. */
const ensureDay = (offset: number) =>
  db().query('SELECT create_day_partitions($1::date, $1::date)', [
    new Date(dayStart(offset)).toISOString().slice(0, 10),
  ]);

/** The partition a row of `table` is in. */
const partitionOf = async (table: string, id: string) =>
  (await db().query(`SELECT tableoid::regclass::text AS p FROM ${table} WHERE id = $1`, [id])).rows.map((r) => r.p);

/**
 * A delivery recorded at `createdAt` as the fan-out records it (its id a version-7 UUID of that time), and its
 * attempts logged at the times given (500 each, the first repeats at `next`).
 */
async function recordedDelivery(
  hook: { id: string },
  merchantId: string,
  createdAt: number,
  attempts: number[],
): Promise<{ deliveryId: string; snapshot: DeliverySnapshot; logIds: string[] }> {
  const event = transactionEvent(merchantId, null);
  const deliveryId = uuidV7At(createdAt);
  const snapshot: DeliverySnapshot = {
    webhookId: hook.id,
    eventId: event.id,
    eventType: 'transaction',
    subject: { psp: 'Payrexx Direct', type: 'e-commerce', uuid: event.subjectId },
    contentType: 'json',
    version: '2026-08-20',
    body: renderedBody(event),
  };
  await db().query(
    `INSERT INTO webhook_delivery (id, webhook_id, merchant_id, event_id, event_type, subject, url, content_type,
                                   version, retry_on_error, body, created_at)
     SELECT $1, $2, $3, $4, 'transaction', $5, w.url, 'json', '2026-08-20', true, convert_to($6, 'UTF8'), $7
       FROM webhook w WHERE w.id = $2`,
    [deliveryId, hook.id, merchantId, event.id, JSON.stringify(snapshot.subject), snapshot.body, new Date(createdAt)],
  );
  const logIds: string[] = [];
  for (const [i, at] of attempts.entries()) {
    const id = uuidV7At(at);
    logIds.push(id);
    await db().query(
      `INSERT INTO webhook_log (id, delivery_id, webhook_id, attempt, event_type, event_id, request, outcome, status,
                                duration_ms, created_at, next_attempt_at)
       VALUES ($1, $2, $3, $4, 'transaction', $5, '{}', 'failed', 500, 5, $6, $7)`,
      [id, deliveryId, hook.id, i + 1, event.id, new Date(at), i === attempts.length - 1 ? new Date() : null],
    );
  }
  return { deliveryId, snapshot, logIds };
}

/** A maintenance run of `app`'s, once no other process runs one (other test files' dispatchers run theirs at start). */
async function maintain(app: INestApplication, now?: number): Promise<MaintenanceReport> {
  for (;;) {
    const report = await app.get(PartitionMaintenance).run(now);
    if (report !== 'skipped') return report;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * The delivery tables' retention (WEBHOOK_LOG_RETENTION): whole day partitions, created a week ahead and dropped
 * once they ended more than the retention (and an hour) ago, by one dispatcher process at a time.
 */
describe('webhook-dispatcher: day partitions and retention (e2e over PostgreSQL, RabbitMQ and HTTP)', () => {
  let dispatcher: INestApplication;
  let amqp: AmqpClient;
  const receiver = new Receiver((request, count) =>
    request.path.startsWith('/fails-once') && count === 1 ? { status: 500 } : { status: 200 },
  );
  let merchantId: string;
  const log = jest.spyOn(Logger.prototype, 'log');
  const warn = jest.spyOn(Logger.prototype, 'warn');

  const metric = async (app: INestApplication, name: 'runs' | 'created' | 'dropped', result?: string) =>
    (await app.get(PartitionMaintenanceMetrics)[name].get()).values.find(
      (value) => result === undefined || value.labels.result === result,
    )?.value ?? 0;

  beforeAll(async () => {
    await receiver.start();
    dispatcher = await startDispatcher();
    amqp = testAmqp();
    await amqp.waitForConnect();
    ({ merchantId } = await createMerchant());
  });
  afterAll(async () => {
    log.mockRestore();
    warn.mockRestore();
    await dispatcher.close();
    await amqp.close();
    await receiver.stop();
    await closeDb();
  });

  it("runs at start-up: today's partitions and the next week's are there, in each table", async () => {
    expect((await metric(dispatcher, 'runs', 'ok')) + (await metric(dispatcher, 'runs', 'skipped'))).toBe(1);
    const existing = await partitions();
    for (let offset = 0; offset <= 7; offset += 1) expect(existing).toEqual(expect.arrayContaining(names(offset)));
  });

  it("creates the missing days ahead, once: a run as if ten days had passed creates that day's and the next week's", async () => {
    const later = Date.now() + 10 * DAY;
    const created = Array.from({ length: 8 }, (_, i) => names(10 + i)).flat();
    const counted = await metric(dispatcher, 'created');
    try {
      const first = await maintain(dispatcher, later);
      expect(first.created.sort()).toEqual([...created].sort());
      expect(await metric(dispatcher, 'created')).toBe(counted + 24);
      expect((await maintain(dispatcher, later)).created).toEqual([]);
      expect(await partitions()).toEqual(expect.arrayContaining(created));
    } finally {
      // Days no other test expects.
      for (const name of created) await db().query(`DROP TABLE IF EXISTS delivery.${name}`);
    }
  });

  it('runs in one process at a time: while another holds the lock, a run is skipped and counted', async () => {
    const maintenance = dispatcher.get(PartitionMaintenance);
    const other = await db().connect();
    try {
      await other.query('SELECT pg_advisory_lock($1)', [MAINTENANCE_LOCK_KEY]);
      const skipped = await metric(dispatcher, 'runs', 'skipped');
      expect(await maintenance.run()).toBe('skipped');
      expect(await metric(dispatcher, 'runs', 'skipped')).toBe(skipped + 1);
    } finally {
      await other.query('SELECT pg_advisory_unlock($1)', [MAINTENANCE_LOCK_KEY]);
      other.release();
    }
    expect(await maintain(dispatcher)).toEqual({
      created: [],
      detached: expect.any(Array),
      dropped: expect.any(Array),
      ms: { create: expect.any(Number), detach: expect.any(Number), drop: expect.any(Number) },
    });
  });

  it('drops whole days ended more than the retention and an hour ago, and nothing newer; logs and counts it', async () => {
    // A dispatcher that keeps two days: its start-up run removes what is older already.
    const shortLived = await startDispatcher({ WEBHOOK_LOG_RETENTION: '2d' });
    try {
      await ensureDay(-4);
      const hook = await createWebhook({ merchantId, url: `${receiver.url}/old`, retryOnError: true });
      // Made four days ago; its last attempt (a repeat, or a resend) two days ago outlives it in the log.
      const old = await recordedDelivery(hook, merchantId, dayStart(-4) + 3_600_000, [
        dayStart(-4) + 3_600_000,
        dayStart(-2) + 3_600_000,
      ]);
      // Made two days ago: its day is not over two days and an hour ago, whatever the time now.
      const recent = await recordedDelivery(hook, merchantId, dayStart(-2) + 60_000, [dayStart(-2) + 60_000]);
      const dropped = await metric(shortLived, 'dropped');
      log.mockClear();

      const report = await maintain(shortLived);
      expect(report.detached.sort()).toEqual(names(-4).sort());
      expect(report.dropped.sort()).toEqual(names(-4).sort());
      expect(await metric(shortLived, 'dropped')).toBe(dropped + 3);
      expect(log).toHaveBeenCalledWith(
        expect.objectContaining({
          msg: expect.stringMatching(
            /^partitions: created 0, dropped 3 \(days ended before \S+\) in [\d.]+ \+ [\d.]+ \+ [\d.]+ ms$/,
          ),
        }),
      );
      const existing = await partitions();
      expect(existing).not.toEqual(expect.arrayContaining([names(-4)[0]]));
      expect(existing).not.toEqual(expect.arrayContaining([names(-4)[1]]));
      expect(existing).not.toEqual(expect.arrayContaining([names(-4)[2]]));
      for (let offset = -2; offset <= 7; offset += 1) expect(existing).toEqual(expect.arrayContaining(names(offset)));

      const deliveries = await db().query('SELECT id FROM webhook_delivery WHERE webhook_id = $1 ORDER BY id', [
        hook.id,
      ]);
      expect(deliveries.rows.map((row) => row.id)).toEqual([recent.deliveryId]);
      expect((await logsOf(hook.id)).map((row) => row.id).sort()).toEqual([old.logIds[1], recent.logIds[0]].sort());
    } finally {
      await shortLived.close();
    }
  });

  it('a repeat of a delivery made before midnight is logged after it, and found there when its stand-in comes back', async () => {
    const hook = await createWebhook({ merchantId, url: `${receiver.url}/fails-once-boundary`, retryOnError: true });
    // Made at 23:59:59.900 yesterday, its first attempt failed at once; its repeat comes out of its delay queue today.
    const yesterday = dayStart(0) - 100;
    const { deliveryId, snapshot } = await recordedDelivery(hook, merchantId, yesterday, [yesterday + 50]);
    await publishDelivery(amqp, { deliveryId, snapshot }, 2);
    await waitFor(async () => (await logsOf(hook.id)).length === 3, { what: 'repeats 2 (failed) and 3 (delivered)' });
    const logged = await logsOf(hook.id);
    expect(logged.map((row) => [row.attempt, row.status])).toEqual([
      [1, 500],
      [2, 500],
      [3, 200],
    ]);
    expect(await partitionOf('webhook_delivery', deliveryId)).toEqual([names(-1)[0]]);
    for (const row of logged.slice(1)) expect(await partitionOf('webhook_log', row.id)).toEqual([names(0)[1]]);

    // Repeat 2's stand-in (its dispatcher died while it ran): its attempt is logged, in today's partition.
    const dropped = async () =>
      (await dispatcher.get(DispatcherMetrics).scheduled.get()).values.find(
        (v) => v.labels.decision === 'stand_in_dropped',
      )?.value ?? 0;
    const before = await dropped();
    await amqp.publish(EXCHANGES.deliveries, ROUTING_KEYS.deliver, Buffer.from(JSON.stringify({ v: 1, deliveryId })), {
      messageId: deliveryId,
      headers: { [ATTEMPT_HEADER]: 2, [GUARD_HEADER]: 1 },
    });
    await waitFor(async () => (await dropped()) === before + 1, { what: 'the stand-in, dropped' });

    // And a resend numbers its attempt after all of them, reading the delivery of yesterday.
    await publishDispatcherCommand(amqp, { type: 'delivery.resend', deliveryId, webhookId: hook.id, merchantId });
    await waitFor(async () => (await logsOf(hook.id)).length === 4, { what: 'the resend' });
    expect((await logsOf(hook.id)).at(-1)).toMatchObject({ attempt: 4, status: 200 });
    expect(receiver.to('/fails-once-boundary').map((r) => r.headers['webhook-id'])).toEqual(Array(3).fill(deliveryId));
  });

  it('resend at the retention edge: a delivery still kept is sent; one whose day was dropped is not', async () => {
    await ensureDay(-30);
    await ensureDay(-32);
    const hook = await createWebhook({ merchantId, url: `${receiver.url}/edge`, retryOnError: true });
    // Made 30 days ago (WEBHOOK_LOG_RETENTION): its day ended less than the retention and an hour ago.
    const kept = await recordedDelivery(hook, merchantId, dayStart(-30) + 10 * 3_600_000, [
      dayStart(-30) + 10 * 3_600_000,
    ]);
    // Made 32 days ago: the maintenance drops its day.
    const gone = await recordedDelivery(hook, merchantId, dayStart(-32) + 10 * 3_600_000, [
      dayStart(-32) + 10 * 3_600_000,
    ]);
    const report = await maintain(dispatcher);
    expect(report.dropped).toEqual(expect.arrayContaining(names(-32)));
    expect(report.dropped).not.toEqual(expect.arrayContaining([names(-30)[0]]));

    warn.mockClear();
    for (const { deliveryId } of [kept, gone]) {
      await publishDispatcherCommand(amqp, { type: 'delivery.resend', deliveryId, webhookId: hook.id, merchantId });
    }
    await waitFor(
      async () => (await logsOf(hook.id)).some((row) => row.delivery_id === kept.deliveryId && row.attempt === 2),
      {
        what: 'the resend of the delivery still kept',
      },
    );
    await waitFor(
      () =>
        warn.mock.calls.some(([entry]) =>
          String((entry as { msg?: string }).msg).startsWith(`resend of delivery ${gone.deliveryId}: no such delivery`),
        ),
      { what: 'the resend of the removed delivery, dropped' },
    );
    expect(receiver.to('/edge').map((r) => r.headers['webhook-id'])).toEqual([kept.deliveryId]);
  });

  it('reports on /metrics: runs, partitions created and dropped, how far ahead and how old they are, the retention', async () => {
    const text = await dispatcher.get(PlatformMetrics).registry.metrics();
    const value = (pattern: RegExp) => Number(pattern.exec(text)?.[1]);
    expect(value(/^webhook_partition_maintenance_runs_total\{result="ok"\} (\d+)$/m)).toBeGreaterThanOrEqual(1);
    expect(text).toMatch(/^webhook_partition_maintenance_runs_total\{result="failed"\} 0$/m);
    expect(text).toMatch(/^webhook_partitions_created_total \d+$/m);
    expect(value(/^webhook_partitions_dropped_total (\d+)$/m)).toBeGreaterThanOrEqual(2);
    expect(value(/^webhook_partition_maintenance_last_success_timestamp_seconds (\S+)$/m)).toBeGreaterThan(
      Date.now() / 1000 - 600,
    );
    expect(text).toMatch(/^webhook_log_retention_seconds 2592000$/m);
    for (const table of ['webhook_delivery', 'webhook_log', 'webhook_delivery_outcome']) {
      // Until the end of the 7th day after today: between 7 and 8 days.
      const ahead = value(new RegExp(`^webhook_partitions_ahead_seconds\\{table="${table}"\\} (\\S+)$`, 'm'));
      expect(ahead).toBeGreaterThan(7 * 86_400);
      expect(ahead).toBeLessThanOrEqual(8 * 86_400);
      const oldest = value(new RegExp(`^webhook_partition_oldest_age_seconds\\{table="${table}"\\} (\\S+)$`, 'm'));
      expect(oldest).toBeGreaterThan(0);
    }
  });
});
