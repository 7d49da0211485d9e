import { afterAll, expect, it } from '@jest/globals';
import amqplib from 'amqplib';
import { durableQueues, retryQueueName, type AmqpClient } from '#messaging';
import { metricsSuite, testEnv, waitFor } from '#testing';
import { loadWebhookDispatcherConfig } from '../src/config/webhook-dispatcher.config.js';
import { DECISIONS, OUTCOMES } from '../src/metrics/dispatcher.metrics.js';
import {
  Receiver,
  closeDb,
  createMerchant,
  createWebhook,
  db,
  dispatcherEnv,
  publishEvents,
  startDispatcher,
  testAmqp,
  transactionEvent,
} from './dispatcher.harness.js';

// A delay no other suite uses: its queue holds this suite's repeat alone, and goes with it.
const ENV = { WEBHOOK_RETRY_DELAYS: '50ms,1h' };
const HOUR_QUEUE = retryQueueName(3_600_000);
const receiver = new Receiver((request) => ({ status: request.path.startsWith('/fail/') ? 500 : 200 }));
let amqp: AmqpClient;

metricsSuite('webhook-dispatcher', () => startDispatcher(ENV), {
  traffic: async () => {
    await receiver.start();
    amqp = testAmqp();
    await amqp.waitForConnect();
    const { merchantId, integrationId } = await createMerchant();
    await createWebhook({ merchantId, url: `${receiver.url}/ok` });
    await publishEvents(amqp, [transactionEvent(merchantId, integrationId)]);
    await waitFor(() => receiver.to('/ok').length === 1, { what: 'the delivery' });
  },
  more: ({ scrape }) => {
    afterAll(async () => {
      const connection = await amqplib.connect(testEnv().amqpUrl);
      const channel = await connection.createChannel();
      await channel.deleteQueue(HOUR_QUEUE);
      await connection.close();
      await amqp.close();
      await receiver.stop();
      await closeDb();
    });

    it('reports every queue it declares as the broker counts it: events, deliveries, slow-lane shards, delay queues, parked', async () => {
      // A repeat waiting for its hour.
      await amqp.publish('', HOUR_QUEUE, Buffer.from('{}'));
      const config = loadWebhookDispatcherConfig(dispatcherEnv(ENV));
      const queues = durableQueues(config.topology);
      expect(queues).toEqual(
        expect.arrayContaining([
          'dispatcher.events',
          'dispatcher.deliveries',
          'dispatcher.deliveries.slow.7',
          'dispatcher.retry.50ms',
          HOUR_QUEUE,
          `dispatcher.guard.${config.timeoutMs + 5_000}ms`,
          'dispatcher.events.parked',
          'dispatcher.deliveries.parked',
        ]),
      );
      // Rate-limited deliveries wait in the schedule (delivery.delivery_wait), not in rate queues.
      expect(queues.filter((q) => q.startsWith('dispatcher.rate.'))).toEqual([]);
      const text = await scrape();
      const reported = Object.fromEntries(
        [...text.matchAll(/^webhook_queue_messages_ready\{queue="([^"]+)"\} (\S+)$/gm)].map((m) => [
          m[1],
          Number(m[2]),
        ]),
      );
      const counted = Object.fromEntries(await Promise.all(queues.map(async (q) => [q, await amqp.queueDepth(q)])));
      expect(reported).toEqual(counted);
      expect(reported[HOUR_QUEUE]).toBe(1);
      expect(text).toMatch(/^# HELP webhook_queue_messages_ready .*aggregate with max\(\)$/m);
    });

    it('has every outcome and decision from the start, at 0 until one happens', async () => {
      const text = await scrape();
      for (const outcome of OUTCOMES)
        expect(text).toMatch(new RegExp(`^webhook_deliveries_total\\{outcome="${outcome}"\\} \\d+$`, 'm'));
      expect(text).toMatch(/^webhook_deliveries_total\{outcome="success"\} 1$/m);
      expect(text).toMatch(/^webhook_deliveries_total\{outcome="no_response"\} 0$/m);
      // Stand-ins an earlier suite's long attempts left in the run's guard queue come back to the delivery queue
      // after the guard delay, and this suite's dispatcher may be the one that finds them logged and drops them.
      const leftovers = ['stand_in_dropped', 'redelivery_dropped'];
      for (const decision of DECISIONS) {
        const value = leftovers.includes(decision) ? '\\d+' : '0';
        expect(text).toMatch(
          new RegExp(`^webhook_delivery_decisions_total\\{decision="${decision}"\\} ${value}$`, 'm'),
        );
      }
    });

    // Last: the test above expects the decisions of the suite's one successful delivery only.
    it('counts the enabled webhooks whose latest attempt failed, and those failing for an hour, from the database', async () => {
      const gauges = async () => {
        const text = await scrape();
        const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
        return { lastAttemptFailed: value('webhooks_last_attempt_failed'), failing: value('webhooks_failing') };
      };
      const before = await gauges();
      expect(before).toEqual({ lastAttemptFailed: expect.any(Number), failing: expect.any(Number) });
      const { merchantId, integrationId } = await createMerchant();
      const hooks = [];
      for (const name of ['a', 'b', 'c'])
        hooks.push(await createWebhook({ merchantId, url: `${receiver.url}/fail/${name}` }));
      await publishEvents(amqp, [transactionEvent(merchantId, integrationId)]);
      await waitFor(async () => (await gauges()).lastAttemptFailed === before.lastAttemptFailed + 3, {
        what: 'the three failed attempts counted',
      });
      expect(await gauges()).toEqual({ lastAttemptFailed: before.lastAttemptFailed + 3, failing: before.failing });

      // One has failed for an hour (its episode moved back), one is disabled (as webhook-config does): not counted.
      const [longFailing, disabled] = hooks;
      await db().query(
        `UPDATE webhook_health SET failing_since = now() - interval '61 minutes' WHERE webhook_id = $1`,
        [longFailing.id],
      );
      await db().query(`UPDATE webhook SET enabled = false, disabled_reason = 'failing' WHERE id = $1`, [disabled.id]);
      expect(await gauges()).toEqual({ lastAttemptFailed: before.lastAttemptFailed + 2, failing: before.failing + 1 });
      expect(await scrape()).toMatch(/^# HELP webhooks_failing .*aggregate with max\(\)$/m);
    });
  },
});
