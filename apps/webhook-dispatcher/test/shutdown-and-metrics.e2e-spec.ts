import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { AmqpClient } from '#messaging';
import { listen, waitFor } from '#testing';
import {
  Receiver,
  closeDb,
  createMerchant,
  createWebhook,
  db,
  logsOf,
  moveWebhook,
  publishEvents,
  startDispatcher,
  testAmqp,
  transactionEvent,
} from './dispatcher.harness.js';

describe('graceful shutdown and /metrics', () => {
  let amqp: AmqpClient;
  const receiver = new Receiver();

  beforeAll(async () => {
    await receiver.start();
    amqp = testAmqp();
    await amqp.waitForConnect();
  });
  afterAll(async () => {
    await amqp.close();
    await receiver.stop();
    await closeDb();
  });

  it('on shutdown, attempts in flight finish and are logged; the rest is left to another dispatcher', async () => {
    // Slow answers so that the shutdown lands while deliveries are in flight.
    receiver.setResponder(() => ({ status: 200 }));
    const slow = new Receiver(() => ({ status: 200 }));
    await slow.start();
    const { merchantId, integrationId } = await createMerchant();
    const hook = await createWebhook({ merchantId, url: `${slow.url}/slow` });
    const first = await startDispatcher({ DISPATCHER_CONCURRENCY: '5', WEBHOOK_TIMEOUT_MS: '5000' });
    slow.setResponder(() => 'hang');
    await publishEvents(
      amqp,
      Array.from({ length: 40 }, () => transactionEvent(merchantId, integrationId)),
    );
    await waitFor(() => slow.requests.length >= 3, { what: 'deliveries in flight' });
    // Release the hanging requests shortly after the shutdown starts: they must complete and be logged.
    setTimeout(() => slow.stop(), 300);
    const closing = first.close();
    await closing;
    const inFlightAtShutdown = slow.requests.length;
    const logged = await logsOf(hook.id);
    expect(logged.length).toBe(inFlightAtShutdown);

    const restarted = new Receiver(() => ({ status: 200 }));
    await restarted.start();
    await moveWebhook(hook.id, `${restarted.url}/slow`);
    const second = await startDispatcher();
    try {
      await waitFor(
        async () => {
          const { rows } = await db().query(
            `SELECT count(DISTINCT delivery_id)::int AS n FROM webhook_log WHERE webhook_id = $1 AND status = 200`,
            [hook.id],
          );
          return rows[0].n === 40 - inFlightAtShutdown || rows[0].n === 40;
        },
        { timeoutMs: 20_000, what: 'the remaining deliveries on the second dispatcher' },
      );
      const { rows } = await db().query(`SELECT count(*)::int AS n FROM webhook_delivery WHERE webhook_id = $1`, [
        hook.id,
      ]);
      expect(rows[0].n).toBe(40);
    } finally {
      await second.close();
      await restarted.stop();
    }
  }, 60_000);

  it('serves Prometheus metrics: deliveries by outcome, latency histogram, in flight and queue lag', async () => {
    const app = await startDispatcher();
    try {
      const base = await listen(app);
      const { merchantId, integrationId } = await createMerchant();
      receiver.setResponder((request) => ({ status: request.path === '/ok' ? 200 : 500 }));
      await createWebhook({ merchantId, url: `${receiver.url}/ok` });
      await createWebhook({ merchantId, url: `${receiver.url}/fail` });
      await publishEvents(amqp, [transactionEvent(merchantId, integrationId)]);
      await waitFor(() => receiver.to('/ok').length === 1 && receiver.to('/fail').length === 1, {
        what: 'both deliveries',
      });
      const text = await waitFor(
        async () => {
          const body = await (await fetch(`${base}/metrics`)).text();
          return /webhook_deliveries_total\{outcome="http_error"\} [1-9]/.test(body) ? body : undefined;
        },
        { what: 'metrics to count the attempts' },
      );
      expect(text).toMatch(/webhook_deliveries_total\{outcome="success"\} [1-9]/);
      expect(text).toMatch(/webhook_delivery_duration_seconds_bucket\{le="0.05"\} \d+/);
      expect(text).toContain('webhook_deliveries_in_flight 0');
      expect(text).toMatch(/webhook_queue_messages_ready\{queue="dispatcher.deliveries"\} \d+/);
      expect(text).toMatch(/webhook_event_to_delivery_seconds_count [1-9]/);
    } finally {
      await app.close();
    }
  });
});
