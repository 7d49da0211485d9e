import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import pg from 'pg';
import { publishWebhookChanged, type AmqpClient } from '#messaging';
import { testEnv, waitFor } from '#testing';
import {
  Receiver,
  closeDb,
  createMerchant,
  createWebhook,
  db,
  publishEvents,
  startDispatcher,
  testAmqp,
  transactionEvent,
} from './dispatcher.harness.js';

/** The test database's name, and a connection to the server's maintenance database to administer it. */
const databaseName = decodeURIComponent(new URL(testEnv().databaseUrl).pathname.slice(1));
const admin = () => {
  const url = new URL(testEnv().databaseUrl);
  url.pathname = '/postgres';
  return new pg.Client({ connectionString: url.toString() });
};

/**
 * PostgreSQL goes away for the dispatcher (its connections are cut and no new ones are accepted) for `ms`, then
 * comes back. The test's own pool keeps its open connections, but must not be used meanwhile.
 */
async function databaseOutage(ms: number): Promise<void> {
  const client = admin();
  await client.connect();
  try {
    await client.query(`ALTER DATABASE "${databaseName}" WITH ALLOW_CONNECTIONS false`);
    await client.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND application_name = 'webhook-dispatcher'`,
      [databaseName],
    );
    await new Promise((resolve) => setTimeout(resolve, ms));
  } finally {
    await client.query(`ALTER DATABASE "${databaseName}" WITH ALLOW_CONNECTIONS true`);
    await client.end();
  }
}

/** Every delivery of these webhooks, with how many times the receiver saw it and how many log rows it has. */
async function deliveries(webhookIds: string[], receiver: Receiver) {
  const { rows } = await db().query<{ id: string; logged: number }>(
    `SELECT d.id, (SELECT count(*)::int FROM webhook_log l WHERE l.delivery_id = d.id) AS logged
       FROM webhook_delivery d WHERE d.webhook_id = ANY($1)`,
    [webhookIds],
  );
  const received = new Map<string, number>();
  for (const request of receiver.requests) {
    const id = request.headers['webhook-id'] as string;
    received.set(id, (received.get(id) ?? 0) + 1);
  }
  return rows.map((row) => ({ ...row, received: received.get(row.id) ?? 0 }));
}

describe('database outages and deleted webhooks (real PostgreSQL and RabbitMQ)', () => {
  let dispatcher: INestApplication;
  let amqp: AmqpClient;
  const receiver = new Receiver(() => ({ status: 200, delayMs: 200 }));

  beforeAll(async () => {
    await receiver.start();
    amqp = testAmqp();
    await amqp.waitForConnect();
    // Short enough for the lock test below to outlast it twice over; long enough for everything else here.
    dispatcher = await startDispatcher({ DATABASE_STATEMENT_TIMEOUT: '1s' });
  });
  afterAll(async () => {
    await dispatcher.close();
    await amqp.close();
    await receiver.stop();
    await closeDb();
  });

  it('PostgreSQL gone for 3 s mid-stream: every event fanned out, every delivery POSTed and logged exactly once', async () => {
    const { merchantId, integrationId } = await createMerchant();
    const hooks = [];
    for (let i = 0; i < 3; i += 1) hooks.push(await createWebhook({ merchantId, url: `${receiver.url}/outage/${i}` }));
    const webhookIds = hooks.map((hook) => hook.id);
    const events = Array.from({ length: 300 }, () => transactionEvent(merchantId, integrationId));

    await publishEvents(amqp, events.slice(0, 150));
    await waitFor(() => receiver.requests.filter((r) => r.path.startsWith('/outage/')).length >= 60, {
      timeoutMs: 30_000,
      what: 'deliveries under way',
    });
    const outage = databaseOutage(3_000);
    // Events that arrive while the database is away must wait, not be parked.
    await publishEvents(amqp, events.slice(150));
    await outage;

    const all = await waitFor(
      async () => {
        const rows = await deliveries(webhookIds, receiver);
        return rows.length === 900 && rows.every((row) => row.logged > 0) && rows;
      },
      { timeoutMs: 60_000, what: '900 deliveries, each logged' },
    );
    // Retry is off for these webhooks: exactly one attempt each, whatever the outage cut short.
    expect(all.filter((row) => row.logged !== 1 || row.received !== 1)).toEqual([]);
  }, 120_000);

  it('log writes cancelled by the statement timeout (the log locked for 3 s) are waited out: each POSTed and logged once', async () => {
    const { merchantId, integrationId } = await createMerchant();
    const hook = await createWebhook({ merchantId, url: `${receiver.url}/held` });
    const locker = new pg.Client({ connectionString: testEnv().databaseUrl });
    await locker.connect();
    try {
      // SHARE mode blocks every INSERT into the log and lets reads through.
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE webhook_log IN SHARE MODE');
      await publishEvents(
        amqp,
        Array.from({ length: 20 }, () => transactionEvent(merchantId, integrationId)),
      );
      await waitFor(() => receiver.to('/held').length >= 20, { timeoutMs: 20_000, what: '20 POSTs' });
      await new Promise((resolve) => setTimeout(resolve, 3_000));
    } finally {
      await locker.query('ROLLBACK');
      await locker.end();
    }
    const all = await waitFor(
      async () => {
        const rows = await deliveries([hook.id], receiver);
        return rows.length === 20 && rows.every((row) => row.logged > 0) && rows;
      },
      { timeoutMs: 30_000, what: '20 deliveries, each logged' },
    );
    expect(all.filter((row) => row.logged !== 1 || row.received !== 1)).toEqual([]);
  }, 60_000);

  it('a webhook deleted while its attempts run costs other webhooks nothing: each of theirs POSTed and logged once', async () => {
    const [doomed, kept] = [await createMerchant(), await createMerchant()];
    const doomedHook = await createWebhook({ merchantId: doomed.merchantId, url: `${receiver.url}/doomed` });
    const keptHook = await createWebhook({ merchantId: kept.merchantId, url: `${receiver.url}/kept` });
    const events = Array.from({ length: 100 }, (_, i) =>
      i % 2 ? transactionEvent(kept.merchantId, kept.integrationId) : transactionEvent(doomed.merchantId, null),
    );
    await publishEvents(amqp, events);
    await waitFor(() => receiver.to('/doomed').length >= 10, { timeoutMs: 30_000, what: 'doomed attempts running' });
    // Deleted as webhook-config deletes it while its attempts are in flight, without telling the dispatcher: its
    // cache still holds the webhook, so attempts of its queued deliveries go on too.
    await db().query('DELETE FROM webhook WHERE id = $1', [doomedHook.id]);

    const ofKept = await waitFor(
      async () => {
        const rows = await deliveries([keptHook.id], receiver);
        return rows.length === 50 && rows.every((row) => row.logged > 0) && rows;
      },
      { timeoutMs: 60_000, what: "the kept webhook's 50 deliveries, each logged" },
    );
    expect(ofKept.filter((row) => row.logged !== 1 || row.received !== 1)).toEqual([]);
  }, 120_000);

  /** Rows of one webhook in a table of the dispatcher's. */
  const rowsOf = async (table: string, webhookId: string): Promise<number> =>
    (await db().query(`SELECT count(*)::int AS n FROM ${table} WHERE webhook_id = $1`, [webhookId])).rows[0].n;

  /** As webhook-config deletes a webhook: the webhook and its secrets (its own schema), then the announcement. */
  async function deleteAsWebhookConfig(webhookId: string, merchantId: string): Promise<number> {
    await db().query('DELETE FROM webhook WHERE id = $1', [webhookId]);
    await publishWebhookChanged(amqp, { webhookId, merchantId });
    return Date.now();
  }

  it('a webhook deleted in webhook-config: the dispatcher deletes its deliveries and their log (they are its own)', async () => {
    const { merchantId, integrationId } = await createMerchant();
    const hook = await createWebhook({ merchantId, url: `${receiver.url}/deleted-done` });
    await publishEvents(amqp, [transactionEvent(merchantId, integrationId), transactionEvent(merchantId, null)]);
    await waitFor(async () => (await rowsOf('webhook_log', hook.id)) === 2, { what: 'both deliveries logged' });
    expect(await rowsOf('webhook_delivery', hook.id)).toBe(2);

    await deleteAsWebhookConfig(hook.id, merchantId);
    await waitFor(
      async () => (await rowsOf('webhook_delivery', hook.id)) === 0 && (await rowsOf('webhook_log', hook.id)) === 0,
      { timeoutMs: 10_000, what: "the deleted webhook's deliveries and log deleted" },
    );
  }, 60_000);

  it('a webhook deleted in webhook-config: its repeats are never attempted, and take their deliveries with them', async () => {
    // Every attempt fails slowly, so repeats keep coming (every 150 ms) until the webhook is gone.
    const failing = new Receiver(() => ({ status: 500, delayMs: 100 }));
    await failing.start();
    try {
      const { merchantId, integrationId } = await createMerchant();
      const hook = await createWebhook({ merchantId, url: `${failing.url}/deleted`, retryOnError: true });
      await publishEvents(amqp, [transactionEvent(merchantId, integrationId), transactionEvent(merchantId, null)]);
      await waitFor(() => failing.to('/deleted').length >= 4, { timeoutMs: 20_000, what: 'repeats under way' });

      const announced = await deleteAsWebhookConfig(hook.id, merchantId);
      await waitFor(
        async () => (await rowsOf('webhook_delivery', hook.id)) === 0 && (await rowsOf('webhook_log', hook.id)) === 0,
        { timeoutMs: 10_000, what: "the deleted webhook's deliveries and log deleted" },
      );
      // None started once the dispatcher knew (attempts already running may finish).
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(failing.to('/deleted').filter((request) => request.receivedAt > announced + 250)).toEqual([]);
    } finally {
      await failing.stop();
    }
  }, 60_000);

  it("an event for a webhook deleted since the dispatcher's cache read it still reaches the merchant's other webhook", async () => {
    const { merchantId, integrationId } = await createMerchant();
    const gone = await createWebhook({ merchantId, url: `${receiver.url}/cached-gone` });
    const other = await createWebhook({ merchantId, url: `${receiver.url}/cached-other` });
    // The first event puts both webhooks into the cache; then one is deleted without telling the dispatcher (as if
    // webhook-config's announcement were lost), so the fan-out still plans a delivery for it.
    await publishEvents(amqp, [transactionEvent(merchantId, integrationId)]);
    await waitFor(() => receiver.to('/cached-other').length === 1, { what: 'the first event delivered' });
    await db().query('DELETE FROM webhook WHERE id = $1', [gone.id]);

    await publishEvents(amqp, [transactionEvent(merchantId, integrationId)]);
    await waitFor(() => receiver.to('/cached-other').length === 2, {
      timeoutMs: 20_000,
      what: 'the second event delivered',
    });
    const { rows } = await db().query('SELECT count(*)::int AS n FROM webhook_delivery WHERE webhook_id = $1', [
      other.id,
    ]);
    expect(rows[0].n).toBe(2);
    expect(receiver.to('/cached-gone')).toHaveLength(1);
  }, 60_000);
});
