import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import amqplib from 'amqplib';
import { createHmac, randomUUID } from 'node:crypto';
import { isUUID } from 'class-validator';
import { Webhook } from 'standardwebhooks';
import { QUEUES, publishWebhookChanged, type AmqpClient } from '#messaging';
import { testEnv, waitFor } from '#testing';
import {
  Receiver,
  closeDb,
  createMerchant,
  createWebhook,
  db,
  deliveryOf,
  logsOf,
  moveWebhook,
  publishEvents,
  renderedBody,
  startDispatcher,
  testAmqp,
  transactionEvent,
} from './dispatcher.harness.js';

/** Counts (and removes) parked deliveries of one delivery id. */
async function parkedCount(deliveryIds: Set<string>): Promise<number> {
  const connection = await amqplib.connect(testEnv().amqpUrl);
  const channel = await connection.createChannel();
  let count = 0;
  // Other suites of the run may have parked messages before ours: they go back once every message was looked at.
  const others = [];
  for (;;) {
    const message = await channel.get(QUEUES.parkedDeliveries, { noAck: false });
    if (!message) break;
    if (deliveryIds.has(JSON.parse(message.content.toString()).deliveryId)) {
      count += 1;
      channel.ack(message);
    } else {
      others.push(message);
    }
  }
  for (const message of others) channel.nack(message, false, true);
  await connection.close();
  return count;
}

describe('webhook-dispatcher delivery (real RabbitMQ, PostgreSQL and loopback receivers)', () => {
  let dispatcher: INestApplication;
  let amqp: AmqpClient;
  const receiver = new Receiver();
  let merchantId: string;
  let integrationId: string;

  beforeAll(async () => {
    await receiver.start();
    dispatcher = await startDispatcher({ WEBHOOK_TIMEOUT_MS: '800' });
    amqp = testAmqp();
    await amqp.waitForConnect();
    ({ merchantId, integrationId } = await createMerchant());
  });
  afterAll(async () => {
    await dispatcher.close();
    await amqp.close();
    await receiver.stop();
    await closeDb();
  });

  it('retry on, receiver failing 3 times: exactly 4 attempts, the last 200', async () => {
    receiver.setResponder((request, count) => ({
      status: request.path === '/flaky' && count <= 3 ? 500 : 200,
      body: 'oops',
    }));
    const hook = await createWebhook({ merchantId, url: `${receiver.url}/flaky`, retryOnError: true });
    await publishEvents(amqp, [transactionEvent(merchantId, integrationId)]);
    await waitFor(async () => (await logsOf(hook.id)).length === 4, { timeoutMs: 15_000, what: '4 attempts' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const logs = await logsOf(hook.id);
    expect(logs.map((l) => [l.attempt, l.status])).toEqual([
      [1, 500],
      [2, 500],
      [3, 500],
      [4, 200],
    ]);
    expect(logs.slice(0, 3).every((l) => l.next_attempt_at instanceof Date)).toBe(true);
    expect(logs[3].next_attempt_at).toBeNull();
    expect(logs[0].response_excerpt).toBe('oops');
    expect(receiver.to('/flaky')).toHaveLength(4);
    // The same webhook-id on every repeat, a fresh timestamp each time, and the same bytes.
    const ids = new Set(receiver.to('/flaky').map((r) => r.headers['webhook-id']));
    expect(ids.size).toBe(1);
    expect(new Set(receiver.to('/flaky').map((r) => r.body)).size).toBe(1);
    expect(await deliveryOf(hook.id)).toEqual({ state: 'succeeded', attempts: 4 });
    // Time-ordered ids (version 7): the log's indexes grow at their right edge instead of at random pages.
    expect(isUUID([...ids][0], 7)).toBe(true);
    expect(logs.map((l) => l.delivery_id)).toEqual(Array(4).fill([...ids][0]));
    expect(logs.every((l) => isUUID(l.id, 7))).toBe(true);
    expect(logs.map((l) => l.id)).toEqual(logs.map((l) => l.id).sort());
  });

  it('retry on, always failing: exactly 11 attempts, then parked and shown as failed', async () => {
    receiver.setResponder((request) => ({ status: request.path === '/down' ? 503 : 200 }));
    const hook = await createWebhook({ merchantId, url: `${receiver.url}/down`, retryOnError: true });
    await publishEvents(amqp, [transactionEvent(merchantId, integrationId)]);
    await waitFor(async () => (await deliveryOf(hook.id))?.state === 'failed', {
      timeoutMs: 20_000,
      what: 'the delivery to fail',
    });
    await new Promise((resolve) => setTimeout(resolve, 400));
    const logs = await logsOf(hook.id);
    expect(logs.map((l) => l.attempt)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    expect(logs.every((l) => l.status === 503)).toBe(true);
    expect(logs[10].next_attempt_at).toBeNull();
    expect(receiver.to('/down')).toHaveLength(11);
    const deliveryId = receiver.to('/down')[0].headers['webhook-id'] as string;
    expect(await parkedCount(new Set([deliveryId]))).toBe(1);
  });

  it('repeats go to the webhook’s current URL when the merchant fixes it in between (same webhook-id and body)', async () => {
    receiver.setResponder((request) => ({ status: request.path === '/typo' ? 404 : 200 }));
    const hook = await createWebhook({ merchantId, url: `${receiver.url}/typo`, retryOnError: true });
    await publishEvents(amqp, [transactionEvent(merchantId, integrationId)]);
    await waitFor(() => receiver.to('/typo').length >= 1, { what: 'the first attempt' });
    await moveWebhook(hook.id, `${receiver.url}/fixed`);
    await publishWebhookChanged(amqp, { webhookId: hook.id, merchantId });
    await waitFor(() => receiver.to('/fixed').length === 1, { what: 'a repeat at the fixed URL' });
    const [first] = receiver.to('/typo');
    const [fixed] = receiver.to('/fixed');
    expect(fixed.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(fixed.body).toBe(first.body);
    await waitFor(async () => (await deliveryOf(hook.id))?.state === 'succeeded', { what: 'the delivery to succeed' });
  });

  it('retry off: exactly one attempt', async () => {
    receiver.setResponder((request) => ({ status: request.path === '/once' ? 500 : 200 }));
    const hook = await createWebhook({ merchantId, url: `${receiver.url}/once`, retryOnError: false });
    await publishEvents(amqp, [transactionEvent(merchantId, integrationId)]);
    await waitFor(async () => (await logsOf(hook.id)).length === 1, { what: 'one attempt' });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await logsOf(hook.id)).map((l) => [l.attempt, l.outcome, l.status, l.next_attempt_at])).toEqual([
      [1, 'failed', 500, null],
    ]);
    expect(await deliveryOf(hook.id)).toEqual({ state: 'failed', attempts: 1 });
  });

  it('a receiver that never answers: status 0 with the reason, after the timeout', async () => {
    receiver.setResponder((request) => (request.path === '/hang' ? 'hang' : { status: 200 }));
    const hook = await createWebhook({ merchantId, url: `${receiver.url}/hang` });
    await publishEvents(amqp, [transactionEvent(merchantId, integrationId)]);
    const [log] = await waitFor(
      async () => {
        const logs = await logsOf(hook.id);
        return logs.length ? logs : undefined;
      },
      { what: 'the timed-out attempt' },
    );
    expect(log.status).toBe(0);
    expect(log.error).toBe('Timeout: no complete response within 800 ms');
    expect(log.duration_ms).toBeGreaterThanOrEqual(790);
  });

  it('logs a response body PostgreSQL cannot store as text (NUL bytes, a character cut in half) with replacements', async () => {
    // 999 ASCII characters, then an emoji (2 UTF-16 units) the 1,000-character excerpt cuts in half.
    const body = `ok\u0000${'x'.repeat(996)}\u{1F600} and more`;
    receiver.setResponder((request) => ({ status: 200, body: request.path === '/binary' ? body : 'ok' }));
    const hook = await createWebhook({ merchantId, url: `${receiver.url}/binary`, retryOnError: false });
    const other = await createWebhook({ merchantId, url: `${receiver.url}/plain`, retryOnError: false });
    await publishEvents(amqp, [transactionEvent(merchantId, integrationId)]);
    await waitFor(async () => (await logsOf(hook.id)).length === 1 && (await logsOf(other.id)).length === 1, {
      what: 'both attempts logged',
    });
    const [log] = await logsOf(hook.id);
    expect(log.status).toBe(200);
    expect(log.response_excerpt).toBe(`ok\uFFFD${'x'.repeat(996)}\uFFFD`);
  });

  it('a 301 is logged as 301 and not followed', async () => {
    receiver.setResponder((request) =>
      request.path === '/moved' ? { status: 301, headers: { location: `${receiver.url}/new-home` } } : { status: 200 },
    );
    const hook = await createWebhook({ merchantId, url: `${receiver.url}/moved`, retryOnError: false });
    await publishEvents(amqp, [transactionEvent(merchantId, integrationId)]);
    await waitFor(async () => (await logsOf(hook.id)).length === 1, { what: 'the 301 attempt' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await logsOf(hook.id))[0].status).toBe(301);
    expect(receiver.to('/new-home')).toHaveLength(0);
  });

  it('signs exactly the bytes sent: standardwebhooks verifies every signature during a rotation, and the hex scheme matches', async () => {
    receiver.setResponder(() => ({ status: 204 }));
    const oldSecret = 'whsec_' + Buffer.alloc(32, 3).toString('base64');
    const hook = await createWebhook({ merchantId, url: `${receiver.url}/signed`, rotatedSecrets: [oldSecret] });
    await publishEvents(amqp, [transactionEvent(merchantId, integrationId)]);
    const [request] = await waitFor(() => (receiver.to('/signed').length ? receiver.to('/signed') : undefined), {
      what: 'the signed request',
    });
    const headers = {
      'webhook-id': request.headers['webhook-id'] as string,
      'webhook-timestamp': request.headers['webhook-timestamp'] as string,
      'webhook-signature': request.headers['webhook-signature'] as string,
    };
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(new Webhook(hook.secret).verify(request.body, headers)).toMatchObject({
      transaction: { referenceId: 'order-1001' },
    });
    expect(new Webhook(oldSecret).verify(request.body, headers)).toBeTruthy();
    expect(() => new Webhook(hook.secret).verify(request.body.replace('1990', '1991'), headers)).toThrow();
    expect(request.headers['x-webhook-signature']).toBe(
      createHmac('sha256', hook.secret).update(request.body).digest('hex'),
    );
    expect(request.headers['content-type']).toBe('application/json');
    expect(Math.abs(Number(headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(10);
    const payload = JSON.parse(request.body);
    expect(payload.transaction['3dsecure']).toEqual({ eci: '05', source: '3ds', version: '2.2.0', flow: 'challenge' });
    const [log] = await waitFor(async () => {
      const logs = await logsOf(hook.id);
      return logs.length ? logs : undefined;
    });
    expect(log.request).toEqual({
      url: `${receiver.url}/signed`,
      contentType: 'json',
      version: '2026-08-20',
      psp: 'Payrexx Direct',
      type: 'e-commerce',
      uuid: payload.transaction.uuid,
      referenceId: 'order-1001',
    });
    expect(log.event_type).toBe('transaction');
    expect([log.outcome, log.status]).toEqual(['delivered', 204]);
  });

  it('fans out to every matching webhook and to no other: version, content type and integration link respected', async () => {
    receiver.setResponder(() => ({ status: 200 }));
    const other = await createMerchant();
    const v1 = await createWebhook({ merchantId, url: `${receiver.url}/v2025`, version: '2025-01-15' });
    const php = await createWebhook({ merchantId, url: `${receiver.url}/php`, contentType: 'php-post' });
    const linked = await createWebhook({ merchantId, url: `${receiver.url}/linked`, integrationId });
    const otherIntegration = await createMerchant();
    const unlinkedOnlyPayouts = await createWebhook({
      merchantId,
      url: `${receiver.url}/payouts-only`,
      events: ['payout'],
    });
    const foreign = await createWebhook({ merchantId: other.merchantId, url: `${receiver.url}/foreign` });
    const event = transactionEvent(merchantId, integrationId);
    await publishEvents(amqp, [event, transactionEvent(merchantId, null)]);
    await waitFor(
      () =>
        receiver.to('/v2025').length === 2 && receiver.to('/php').length === 2 && receiver.to('/linked').length === 1,
      {
        what: 'fan-out',
      },
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(JSON.parse(receiver.to('/v2025')[0].body).transaction).not.toHaveProperty('3dsecure');
    expect(receiver.to('/php')[0].headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(receiver.to('/php')[0].body).toContain(
      'transaction%5B3dsecure%5D%5Beci%5D=05'.replace(/%5B/g, '[').replace(/%5D/g, ']'),
    );
    expect(receiver.to('/linked')).toHaveLength(1);
    expect(receiver.to('/payouts-only')).toHaveLength(0);
    expect(receiver.to('/foreign')).toHaveLength(0);
    expect([v1, php, linked, unlinkedOnlyPayouts, foreign, otherIntegration]).toHaveLength(6);
  });

  it('an event fanned out again keeps its deliveries: a recorded one is sent under its first id, an attempted one not again', async () => {
    receiver.setResponder(() => ({ status: 200 }));
    const merchant = await createMerchant(); // only this test's webhooks match its event
    const event = transactionEvent(merchant.merchantId, merchant.integrationId);
    const recorded = await createWebhook({ merchantId: merchant.merchantId, url: `${receiver.url}/again-recorded` });
    const attempted = await createWebhook({ merchantId: merchant.merchantId, url: `${receiver.url}/again-attempted` });
    const fresh = await createWebhook({ merchantId: merchant.merchantId, url: `${receiver.url}/again-fresh` });
    // As left by a dispatcher that died after recording the deliveries, having attempted only one of them.
    const [recordedId, attemptedId] = [randomUUID(), randomUUID()];
    await db().query(
      `INSERT INTO webhook_delivery (id, webhook_id, merchant_id, event_id, event_type, subject, url, content_type,
                                     version, retry_on_error, body)
       SELECT d.id, d.webhook_id, $3, $4, 'transaction', '{}', 'http://unused', 'json', '2026-08-20', true, $5
         FROM unnest($1::uuid[], $2::uuid[]) AS d(id, webhook_id)`,
      [
        [recordedId, attemptedId],
        [recorded.id, attempted.id],
        merchant.merchantId,
        event.id,
        Buffer.from(renderedBody(event)),
      ],
    );
    await db().query(
      `INSERT INTO webhook_log (id, delivery_id, webhook_id, attempt, event_type, event_id, request, outcome, status,
                                duration_ms)
       VALUES ($1, $2, $3, 1, 'transaction', $4, '{}', 'delivered', 200, 5)`,
      [randomUUID(), attemptedId, attempted.id, event.id],
    );

    await publishEvents(amqp, [event]);
    await waitFor(async () => (await logsOf(recorded.id)).length === 1 && (await logsOf(fresh.id)).length === 1, {
      what: 'the deliveries not attempted yet, logged',
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const { rows } = await db().query<{ id: string; webhook_id: string }>(
      'SELECT id, webhook_id FROM webhook_delivery WHERE event_id = $1',
      [event.id],
    );
    const freshId = rows.find((row) => row.webhook_id === fresh.id)?.id;
    expect(rows).toHaveLength(3); // no second delivery for any webhook
    expect(receiver.to('/again-recorded').map((r) => r.headers['webhook-id'])).toEqual([recordedId]);
    expect(receiver.to('/again-fresh').map((r) => r.headers['webhook-id'])).toEqual([freshId]);
    expect(receiver.to('/again-attempted')).toHaveLength(0);
    expect(await logsOf(attempted.id)).toHaveLength(1); // only the one it had
  });
});
