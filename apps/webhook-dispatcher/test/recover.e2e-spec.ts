import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUIDv7 } from 'node:crypto';
import { publishDispatcherCommand, publishRecoverCommand, publishWebhookChanged, type AmqpClient } from '#messaging';
import { uuidV7At, waitFor } from '#testing';
import { startAppProcess, stopAppProcess, type AppProcess } from './app-process.js';
import {
  Receiver,
  closeDb,
  createMerchant,
  createWebhook,
  db,
  dispatcherEnv,
  publishEvents,
  renderedBody,
  testAmqp,
  transactionEvent,
} from './dispatcher.harness.js';

const DAY = 86_400_000;

/**
 * Recover as a job, with dispatchers as OS processes (CONTRACT §5, Recover): each of thousands of events that failed
 * or were skipped over days is sent again once, the job paced by what is attempted; one recover per webhook at a
 * time; disabling the webhook stops it and nothing more is sent; a dispatcher killed mid-recover leaves it to
 * another, which sends the rest and nothing twice.
 */
describe('recover as a job (e2e, dispatcher processes)', () => {
  let receiver: Receiver;
  let amqp: AmqpClient;
  let merchantId: string;
  const dispatchers: AppProcess[] = [];

  /** What a process's recovers queue a second at most, together. */
  const RECOVER_RATE = 500;
  const start = (name: string) =>
    startAppProcess(
      'webhook-dispatcher',
      dispatcherEnv({
        LOG_LEVEL: 'warn',
        WEBHOOK_TIMEOUT_MS: '10000',
        DISPATCHER_RECOVER_MAX_PER_SECOND: String(RECOVER_RATE),
      }),
      { name },
    );

  beforeAll(async () => {
    receiver = await new Receiver().start();
    amqp = testAmqp('test-recover');
    await amqp.waitForConnect();
    ({ merchantId } = await createMerchant());
  });
  afterAll(async () => {
    for (const dispatcher of dispatchers) await stopAppProcess(dispatcher);
    // A recover a failed test left running would be taken over by a later suite's dispatcher (the same database).
    await db().query(
      `UPDATE webhook_recover SET state = 'cancelled', finished_at = now() WHERE merchant_id = $1 AND state = 'running'`,
      [merchantId],
    );
    await amqp.close();
    await receiver.stop();
    await closeDb();
  }, 60_000);

  /**
   * `count` deliveries of the webhook over the last `days` days, each logged as skipped (the webhook was disabled), as
   * the dispatcher records them. One statement: the test is about the recover, not the fan-out.
   */
  async function seedSkipped(webhookId: string, url: string, count: number, days: number): Promise<string[]> {
    const body = renderedBody(transactionEvent(merchantId, null));
    const now = Date.now();
    // The days they fall on: another suite's maintenance, with a short retention, may have dropped them.
    const utcDay = (time: number) => new Date(time).toISOString().slice(0, 10);
    await db().query('SELECT delivery.create_day_partitions($1::date, $2::date)', [
      utcDay(now - (days + 1) * DAY),
      utcDay(now + DAY),
    ]);
    const rows = Array.from({ length: count }, (_, i) => {
      const at = now - days * DAY + Math.floor((i * days * DAY) / count) + 1_000;
      return { id: uuidV7At(at), logId: uuidV7At(at + 1), eventId: randomUUIDv7(), at: new Date(at).toISOString() };
    });
    await db().query(
      `WITH d AS (
         INSERT INTO webhook_delivery (id, webhook_id, merchant_id, event_id, event_type, subject, url, content_type,
                                       version, retry_on_error, body, created_at)
         SELECT r.id, $2, $3, r."eventId", 'transaction', '{"uuid":"x"}', $4, 'json', '2026-08-20', false,
                convert_to($5, 'UTF8'), r.at
           FROM json_to_recordset($1::json) AS r(id uuid, "logId" uuid, "eventId" uuid, at timestamptz)
         RETURNING id),
       o AS (
         INSERT INTO webhook_delivery_outcome (delivery_id, created_at, webhook_id, recoverable, outcome_at)
         SELECT r.id, r.at, $2, true, r.at
           FROM json_to_recordset($1::json) AS r(id uuid, "logId" uuid, "eventId" uuid, at timestamptz))
       INSERT INTO webhook_log (id, delivery_id, webhook_id, attempt, event_type, event_id, request, outcome, status,
                                duration_ms, created_at)
       SELECT r."logId", r.id, $2, 1, 'transaction', r."eventId", '{}', 'skipped', NULL, 0, r.at
         FROM json_to_recordset($1::json) AS r(id uuid, "logId" uuid, "eventId" uuid, at timestamptz)`,
      [JSON.stringify(rows), webhookId, merchantId, url, body],
    );
    return rows.map((row) => row.id);
  }

  const recover = (webhookId: string, recoverId: string, since: Date) =>
    publishRecoverCommand(amqp, {
      type: 'webhook.recover',
      recoverId,
      webhookId,
      merchantId,
      since: since.toISOString(),
    });

  const recoverRow = async (id: string) =>
    (
      await db().query<{ state: string; total: number; sent: number; cancel_reason: string | null }>(
        `SELECT state, total, sent, cancel_reason FROM delivery.webhook_recover_for_webhook_config WHERE id = $1`,
        [id],
      )
    ).rows[0];

  /** The webhook-ids a path received, and how many of them more than once. */
  const arrivals = (path: string) => {
    const ids = receiver.to(path).map((request) => request.headers['webhook-id'] as string);
    return { ids: new Set(ids), repeats: ids.length - new Set(ids).size };
  };

  it('sends each of 3,000 events over 3 days once, at its share of the machine, refuses a second recover while it runs, and finishes with its count', async () => {
    dispatchers.push(await start('dispatcher-a'));
    const url = `${receiver.url}/all`;
    const hook = await createWebhook({ merchantId, url });
    const ids = await seedSkipped(hook.id, url, 3_000, 3);
    const [first, second] = [randomUUIDv7(), randomUUIDv7()];
    await recover(hook.id, first, new Date(Date.now() - 4 * DAY));
    await recover(hook.id, second, new Date(Date.now() - 4 * DAY)); // pressed twice

    await waitFor(() => arrivals('/all').ids.size === 3_000, { timeoutMs: 90_000, what: '3,000 events sent again' });
    // The two commands are taken concurrently: either may be the one that runs, never both.
    const ran = await waitFor(
      async () => {
        const [a, b] = [await recoverRow(first), await recoverRow(second)];
        return a?.state === 'finished' || b?.state === 'finished' ? { a, b } : undefined;
      },
      { what: 'the recover finished' },
    );
    expect([ran.a, ran.b].filter(Boolean)).toEqual([
      { state: 'finished', total: 3_000, sent: 3_000, cancel_reason: null },
    ]);
    const { ids: received, repeats } = arrivals('/all');
    expect(repeats).toBe(0);
    expect([...received].sort()).toEqual([...ids].sort());
    // At most DISPATCHER_RECOVER_MAX_PER_SECOND a second (half a second of it saved up at the start): 3,000 take at
    // least 5.5 s, where the receiver takes them in about 2.
    const times = receiver.to('/all').map((request) => request.receivedAt);
    expect(Math.max(...times) - Math.min(...times)).toBeGreaterThan(((3_000 - RECOVER_RATE / 2) / RECOVER_RATE) * 950);
    // Each is logged delivered, as a manual attempt (2) of its delivery, and no longer recoverable.
    const { rows } = await db().query(
      `SELECT count(DISTINCT l.delivery_id) FILTER (WHERE l.outcome = 'delivered' AND l.manual AND l.attempt = 2)::int
                AS delivered,
              count(DISTINCT o.delivery_id) FILTER (WHERE o.recoverable)::int AS recoverable
         FROM webhook_delivery d LEFT JOIN webhook_log l ON l.delivery_id = d.id AND l.manual
              LEFT JOIN webhook_delivery_outcome o ON o.delivery_id = d.id AND o.created_at = d.created_at
        WHERE d.webhook_id = $1`,
      [hook.id],
    );
    expect(rows[0]).toEqual({ delivered: 3_000, recoverable: 0 });
  }, 150_000);

  it('stops when the webhook is disabled: nothing more is sent, and the recover says so', async () => {
    const url = `${receiver.url}/disabled`;
    const hook = await createWebhook({ merchantId, url, maxPerSecond: 100 });
    await seedSkipped(hook.id, url, 2_000, 1);
    const id = randomUUIDv7();
    await recover(hook.id, id, new Date(Date.now() - 2 * DAY));
    await waitFor(() => receiver.to('/disabled').length >= 100, { timeoutMs: 30_000, what: '100 sent again' });
    await db().query(`UPDATE webhook SET enabled = false, disabled_reason = 'manual' WHERE id = $1`, [hook.id]);
    await publishWebhookChanged(amqp, { webhookId: hook.id, merchantId });
    const atDisable = receiver.to('/disabled').length;
    await waitFor(async () => (await recoverRow(id))?.state === 'cancelled', { what: 'the recover cancelled' });
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const after = receiver.to('/disabled').length - atDisable;
    // At most what was already on its way: one change message's delivery to the dispatcher.
    expect(after).toBeLessThanOrEqual(20);
    expect(receiver.to('/disabled').length).toBeLessThan(2_000);
    expect((await recoverRow(id))?.cancel_reason).toBe('disabled');
  }, 90_000);

  it('"Send test" reaches a rate-limited webhook at once, never behind its backlog', async () => {
    const url = `${receiver.url}/backlog`;
    const hook = await createWebhook({ merchantId, url, maxPerSecond: 1 });
    await publishEvents(
      amqp,
      Array.from({ length: 200 }, () => transactionEvent(merchantId, null)),
    );
    await waitFor(
      async () =>
        (await db().query(`SELECT count(*)::int AS n FROM delivery.delivery_wait WHERE webhook_id = $1`, [hook.id]))
          .rows[0].n >= 150,
      { what: 'a backlog of 150 waiting' },
    );
    const deliveryId = randomUUIDv7();
    const asked = Date.now();
    await publishDispatcherCommand(amqp, { type: 'webhook.test', deliveryId, webhookId: hook.id, merchantId });
    const test = await waitFor(
      () => receiver.to('/backlog').find((request) => request.headers['webhook-id'] === deliveryId),
      { timeoutMs: 10_000, what: 'the test delivery' },
    );
    // Behind 150 at 1 a second it would wait minutes; it takes the next start (at most a second or two away).
    expect(test!.receivedAt - asked).toBeLessThan(3_000);
    await db().query(`UPDATE webhook SET enabled = false, disabled_reason = 'manual' WHERE id = $1`, [hook.id]);
    await publishWebhookChanged(amqp, { webhookId: hook.id, merchantId });
  }, 60_000);

  it('carries on in another process when the one working on it is killed: the rest arrive, none whose success was logged sent again', async () => {
    dispatchers.push(await start('dispatcher-b'));
    const url = `${receiver.url}/killed`;
    // Slow enough that the kill finds most of them still to send.
    receiver.setResponder((request) =>
      request.path === '/killed' ? { status: 200, body: 'ok', delayMs: 5 } : { status: 200, body: 'ok' },
    );
    const hook = await createWebhook({ merchantId, url, maxPerSecond: 400 });
    const ids = await seedSkipped(hook.id, url, 4_000, 2);
    const id = randomUUIDv7();
    await recover(hook.id, id, new Date(Date.now() - 3 * DAY));
    await waitFor(() => receiver.to('/killed').length >= 800, { timeoutMs: 60_000, what: '800 sent again' });
    const { rows } = await db().query<{ lease_owner: string }>(
      `SELECT lease_owner FROM delivery.webhook_recover WHERE id = $1`,
      [id],
    );
    const owner = dispatchers.find((dispatcher) => rows[0].lease_owner.includes(`:${dispatcher.child.pid}:`))!;
    expect(owner).toBeDefined();
    owner.child.kill('SIGKILL');
    await waitFor(() => arrivals('/killed').ids.size === 4_000, {
      timeoutMs: 120_000,
      what: 'all 4,000 after the kill',
    });
    const { ids: received, repeats } = arrivals('/killed');
    expect([...received].sort()).toEqual([...ids].sort());
    // Only the attempts the killed process had made and not yet logged can be made again (at-least-once): at most
    // what it had in flight, the recover lane's prefetch (128).
    expect(repeats).toBeLessThanOrEqual(128);
    // And never one whose 2xx had been logged: each delivery has one logged success, however many times it arrived.
    const { rows: loggedTwice } = await db().query<{ deliveries: number }>(
      `SELECT count(*)::int AS deliveries FROM (
         SELECT delivery_id FROM webhook_log WHERE webhook_id = $1 AND manual AND outcome = 'delivered'
          GROUP BY delivery_id HAVING count(*) > 1) twice`,
      [hook.id],
    );
    expect(loggedTwice[0].deliveries).toBe(0);
    await waitFor(async () => (await recoverRow(id))?.state === 'finished', { timeoutMs: 60_000, what: 'finished' });
    process.stderr.write(`recover after SIGKILL: ${repeats} repeats of 4,000\n`);
  }, 240_000);
});
