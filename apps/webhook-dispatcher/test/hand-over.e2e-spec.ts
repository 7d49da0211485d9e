import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { AmqpClient, ATTEMPT_HEADER, EXCHANGES, GUARD_HEADER, ROUTING_KEYS, guardQueueName } from '#messaging';
import { waitFor } from '#testing';
import {
  Receiver,
  closeDb,
  createMerchant,
  createWebhook,
  db,
  logsOf,
  publishEvents,
  renderedBody,
  startDispatcher,
  testAmqp,
  transactionEvent,
  publishDelivery,
} from './dispatcher.harness.js';
import { DispatcherMetrics } from '../src/metrics/dispatcher.metrics.js';

const TIMEOUT_MS = 4_000;
/** WebhookDispatcherConfig.guardDelayMs for this timeout. */
const GUARD_DELAY_MS = TIMEOUT_MS + 5_000;

/** A delivery row as the fan-out records it (here without a message: the test publishes what it needs). */
async function recordedDelivery(webhookId: string, merchantId: string, body: string, retryOnError: boolean) {
  const deliveryId = randomUUID();
  await db().query(
    `INSERT INTO webhook_delivery (id, webhook_id, merchant_id, event_id, event_type, subject, url, content_type,
                                   version, retry_on_error, body)
     SELECT $1, $2, $3, $4, 'transaction', $5, w.url, 'json', '2026-08-20', $6, convert_to($7, 'UTF8')
       FROM webhook w WHERE w.id = $2`,
    [deliveryId, webhookId, merchantId, randomUUID(), JSON.stringify({ uuid: randomUUID() }), retryOnError, body],
  );
  return deliveryId;
}

/** A stand-in for attempt `attempt` of a delivery, as it comes back from the guard queue (without a snapshot). */
function publishStandIn(amqp: AmqpClient, deliveryId: string, attempt: number): Promise<void> {
  return amqp.publish(EXCHANGES.deliveries, ROUTING_KEYS.deliver, Buffer.from(JSON.stringify({ deliveryId })), {
    messageId: deliveryId,
    headers: { [ATTEMPT_HEADER]: attempt, [GUARD_HEADER]: 1 },
  });
}

describe('long attempts hand their message over to a stand-in (no message held for the whole timeout)', () => {
  let dispatcher: INestApplication;
  let amqp: AmqpClient;
  const receiver = new Receiver((request) =>
    request.path === '/slow' ? { status: 200, body: 'late but fine', delayMs: 2_500 } : { status: 200 },
  );

  const standInsDropped = async () =>
    (await dispatcher.get(DispatcherMetrics).scheduled.get()).values.find(
      (v) => v.labels.decision === 'stand_in_dropped',
    )?.value ?? 0;

  beforeAll(async () => {
    await receiver.start();
    dispatcher = await startDispatcher({ WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS) });
    amqp = testAmqp();
    await amqp.waitForConnect();
  });
  afterAll(async () => {
    await dispatcher.close();
    await amqp.close();
    await receiver.stop();
    await closeDb();
  });

  it('a 2.5 s attempt acks its message after 1 s, is logged once, and its stand-in is dropped after the delay', async () => {
    // Stand-ins of earlier test files' dispatchers may still come back through the shared delivery queue.
    const droppedBefore = await standInsDropped();
    const { merchantId, integrationId } = await createMerchant();
    const hook = await createWebhook({ merchantId, url: `${receiver.url}/slow` });
    await publishEvents(amqp, [transactionEvent(merchantId, integrationId)]);
    await waitFor(() => receiver.to('/slow').length === 1, { what: 'the attempt to reach the receiver' });

    // The receiver has not answered yet, but the dispatcher no longer holds the message.
    await waitFor(() => dispatcher.get(AmqpClient).inFlightCount === 0, {
      timeoutMs: 1_800,
      what: 'the delivery message to be settled while its attempt still runs',
    });
    expect(await logsOf(hook.id)).toHaveLength(0);
    expect(await amqp.queueDepth(guardQueueName(GUARD_DELAY_MS))).toBe(1);

    await waitFor(async () => (await logsOf(hook.id)).length === 1, { what: 'the attempt to be logged' });
    expect((await logsOf(hook.id)).map((l) => [l.attempt, l.status, l.response_excerpt])).toEqual([
      [1, 200, 'late but fine'],
    ]);

    // After the guard delay the stand-in comes back, finds the attempt logged, and is dropped.
    await waitFor(
      async () =>
        (await amqp.queueDepth(guardQueueName(GUARD_DELAY_MS))) === 0 && (await standInsDropped()) > droppedBefore,
      { timeoutMs: GUARD_DELAY_MS + 5_000, what: 'the stand-in to come back and be dropped' },
    );
    await new Promise((resolve) => setTimeout(resolve, 1_000)); // had it been attempted instead, the POST would show
    expect(receiver.to('/slow')).toHaveLength(1);
    expect(await logsOf(hook.id)).toHaveLength(1);
  }, 30_000);

  it('a stand-in whose attempt was never logged (its dispatcher died) is attempted; once logged, it is dropped', async () => {
    const { merchantId } = await createMerchant();
    const hook = await createWebhook({ merchantId, url: `${receiver.url}/orphan` });
    const body = renderedBody(transactionEvent(merchantId, null, { referenceId: 'orphan' }));
    const deliveryId = await recordedDelivery(hook.id, merchantId, body, false);
    const standIn = () => publishStandIn(amqp, deliveryId, 1);

    await standIn();
    await waitFor(async () => (await logsOf(hook.id)).length === 1, { what: 'the orphaned attempt to be made' });
    expect(receiver.to('/orphan').map((r) => r.body)).toEqual([body]);

    const dropped = await standInsDropped();
    await standIn(); // a second stand-in for the same, now logged, attempt
    await waitFor(async () => (await standInsDropped()) === dropped + 1, { what: 'the second stand-in to be dropped' });
    expect(receiver.to('/orphan')).toHaveLength(1);
    expect(await logsOf(hook.id)).toHaveLength(1);
  });

  it('a manual attempt (test or resend) that runs long is made once: its stand-in finds it logged', async () => {
    const { merchantId } = await createMerchant();
    const hook = await createWebhook({ merchantId, url: `${receiver.url}/slow` });
    const before = receiver.to('/slow').length;
    const deliveryId = await recordedDelivery(
      hook.id,
      merchantId,
      renderedBody(transactionEvent(merchantId, null)),
      true,
    );
    const dropped = await standInsDropped();
    await publishDelivery(amqp, { deliveryId, manual: true }, 1);
    await waitFor(async () => (await standInsDropped()) === dropped + 1, {
      timeoutMs: GUARD_DELAY_MS + 5_000,
      what: "the manual attempt's stand-in to be dropped",
    });
    expect(receiver.to('/slow').length - before).toBe(1);
    expect(await logsOf(hook.id)).toHaveLength(1);
  }, 30_000);

  it("a resend's log entry with the same attempt number does not stand in for the automatic attempt", async () => {
    const { merchantId } = await createMerchant();
    const hook = await createWebhook({ merchantId, url: `${receiver.url}/resent` });
    const body = renderedBody(transactionEvent(merchantId, null, { referenceId: 'resent' }));
    const deliveryId = await recordedDelivery(hook.id, merchantId, body, true);
    // Attempt 1 failed and scheduled attempt 2; meanwhile the merchant resent, which took number 2 as well.
    for (const [attempt, manual] of [
      [1, false],
      [2, true],
    ] as const) {
      await db().query(
        `INSERT INTO webhook_log (id, delivery_id, webhook_id, attempt, event_type, event_id, request, outcome, status,
                                  duration_ms, manual)
         VALUES ($1, $2, $3, $4, 'transaction', $5, '{}', 'failed', 500, 5, $6)`,
        [randomUUID(), deliveryId, hook.id, attempt, randomUUID(), manual],
      );
    }
    // The automatic attempt 2's stand-in comes back (its dispatcher died while the attempt ran).
    await publishStandIn(amqp, deliveryId, 2);
    await waitFor(async () => (await logsOf(hook.id)).length === 3, { what: 'the automatic attempt 2 to be made' });
    expect(receiver.to('/resent').map((r) => r.body)).toEqual([body]);
  });
});
