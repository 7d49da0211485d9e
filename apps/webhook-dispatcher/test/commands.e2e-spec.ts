import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { Logger, type INestApplication } from '@nestjs/common';
import { randomUUID, randomUUIDv7 } from 'node:crypto';
import {
  EXCHANGES,
  publishDispatcherCommand,
  type AmqpClient,
  type DispatcherCommand,
  type DispatcherCommandType,
} from '#messaging';
import { expectValidWebhookBody, waitFor } from '#testing';
import { DispatcherMetrics } from '../src/metrics/dispatcher.metrics.js';
import {
  closeDb,
  createMerchant,
  createWebhook,
  db,
  logsOf,
  Receiver,
  renderedBody,
  startDispatcher,
  testAmqp,
  transactionEvent,
  type WebhookSpec,
} from './dispatcher.harness.js';

/**
 * The merchant backend's test deliveries and resends, as the dispatcher takes them: commands on webhooks.commands
 * (published here the way webhook-config publishes them). The dispatcher renders the sample event, records the
 * delivery, numbers every manual attempt and enforces the resend limit.
 */
describe('webhook-dispatcher: test and resend commands (e2e over RabbitMQ and HTTP)', () => {
  let dispatcher: INestApplication;
  let amqp: AmqpClient;
  const receiver = new Receiver();
  let merchantId: string;
  let integrationId: string;
  const warn = jest.spyOn(Logger.prototype, 'warn');

  beforeAll(async () => {
    await receiver.start();
    dispatcher = await startDispatcher();
    amqp = testAmqp();
    await amqp.waitForConnect();
    ({ merchantId, integrationId } = await createMerchant());
  });
  afterAll(async () => {
    warn.mockRestore();
    await dispatcher.close();
    await amqp.close();
    await receiver.stop();
    await closeDb();
  });

  const command = (type: DispatcherCommandType, webhookId: string, deliveryId = randomUUIDv7()) =>
    publishDispatcherCommand(amqp, { type, deliveryId, webhookId, merchantId }).then(() => deliveryId);

  const deliveryRow = async (deliveryId: string) =>
    (await db().query('SELECT * FROM webhook_delivery WHERE id = $1', [deliveryId])).rows[0];

  /** Sends a test to a new webhook and waits for its one attempt; the delivery row and what the receiver got. */
  const testOf = async (path: string, spec: Partial<WebhookSpec>) => {
    const hook = await createWebhook({ merchantId, url: `${receiver.url}${path}`, ...spec });
    const deliveryId = await command('webhook.test', hook.id);
    await waitFor(async () => (await logsOf(hook.id)).length === 1, { what: `the test attempt to ${path}` });
    const row = await deliveryRow(deliveryId);
    const [received] = receiver.to(path);
    await expectValidWebhookBody(received, { version: row.version, contentType: row.content_type });
    return { hook, deliveryId, row, received, text: received.body };
  };

  /** A delivery of a transaction event to `hook`, with `failed` automatic attempts logged (as fan-out leaves it). */
  const seedDelivery = async (hook: { id: string }, failed: number) => {
    const deliveryId = randomUUID();
    const event = transactionEvent(merchantId, null);
    await db().query(
      `INSERT INTO webhook_delivery (id, webhook_id, merchant_id, event_id, event_type, subject, url, content_type,
                                     version, retry_on_error, body)
       VALUES ($1, $2, $3, $4, 'transaction', $5, 'http://unused', 'json', '2026-08-20', false, $6)`,
      [
        deliveryId,
        hook.id,
        merchantId,
        event.id,
        JSON.stringify({ uuid: event.subjectId }),
        Buffer.from(renderedBody(event)),
      ],
    );
    await db().query(
      `INSERT INTO webhook_log (id, delivery_id, webhook_id, attempt, event_type, event_id, request, outcome, status,
                                duration_ms, created_at)
       SELECT gen_random_uuid(), $1, $2, i, 'transaction', $3, '{}', 'failed', 500, 5,
              now() - interval '1 hour' + i * interval '1 s'
         FROM generate_series(1, $4::int) AS i`,
      [deliveryId, hook.id, event.id, failed],
    );
    return deliveryId;
  };

  const manualAttempts = async (deliveryId: string) =>
    (
      await db().query<{ attempt: number }>(
        'SELECT attempt FROM webhook_log WHERE delivery_id = $1 AND manual ORDER BY attempt',
        [deliveryId],
      )
    ).rows.map((row) => row.attempt);

  it('test: records a sample transaction rendered for the webhook and attempts it once, manually', async () => {
    const { hook, deliveryId, row, received, text } = await testOf('/test-json', {
      events: ['payout', 'transaction'],
      version: '2026-08-20',
      integrationId,
    });
    expect(row).toMatchObject({
      webhook_id: hook.id,
      merchant_id: merchantId,
      event_type: 'transaction',
      url: `${receiver.url}/test-json`,
      content_type: 'json',
      version: '2026-08-20',
      retry_on_error: false,
      manual_attempts: 1,
      last_manual_attempt: 1,
    });
    expect(row.body.toString('utf8')).toBe(text);
    const body = JSON.parse(text);
    expect(Object.keys(body)).toEqual(['transaction']);
    expect(body.transaction).toMatchObject({
      referenceId: 'webhook-test',
      status: 'confirmed',
      psp: 'Payrexx Direct',
      type: 'e-commerce',
      paymentMethod: 'visa',
      amount: 1990,
      currency: 'CHF',
      integrationId,
    });
    expect(body.transaction['3dsecure']).toEqual({ eci: '05', source: '3ds', version: '2.2.0', flow: 'challenge' });
    expect(row.subject).toEqual({
      psp: 'Payrexx Direct',
      type: 'e-commerce',
      uuid: body.transaction.uuid,
      referenceId: 'webhook-test',
    });
    expect(received.headers['webhook-id']).toBe(deliveryId);
    const [log] = await logsOf(hook.id);
    expect(log).toMatchObject({ delivery_id: deliveryId, attempt: 1, status: 200, next_attempt_at: null });
    expect(await manualAttempts(deliveryId)).toEqual([1]);
  });

  it('test: a webhook without transactions is sent a sample of an event it receives', async () => {
    const payout = await testOf('/test-payout', { events: ['payout'] });
    expect(payout.row.event_type).toBe('payout');
    const payoutBody = JSON.parse(payout.text);
    expect(payoutBody).toEqual({
      payout: {
        id: expect.any(String),
        status: 'initialised',
        amount: 125000,
        currency: 'CHF',
        createdAt: expect.any(String),
      },
    });
    expect(payout.row.subject).toEqual({ uuid: payoutBody.payout.id, referenceId: null });

    const subscription = await testOf('/test-subscription', { events: ['payout', 'subscription'] });
    expect(subscription.row.event_type).toBe('subscription');
    const subscriptionBody = JSON.parse(subscription.text);
    expect(Object.keys(subscriptionBody)).toEqual(['subscription']);
    expect(subscriptionBody.subscription).toMatchObject({
      status: 'active',
      event: 'renewed',
      referenceId: 'webhook-test',
      amount: 4900,
      currency: 'EUR',
      interval: 'P1M',
      integrationId: null,
    });
    expect(subscription.row.subject).toEqual({ uuid: subscriptionBody.subscription.id, referenceId: 'webhook-test' });
  });

  it('test: renders PHP form posts and the older version as configured (no 3dsecure key in 2025-01-15)', async () => {
    const { row, text } = await testOf('/test-php', {
      events: ['transaction'],
      contentType: 'php-post',
      version: '2025-01-15',
    });
    expect(row).toMatchObject({ content_type: 'php-post', version: '2025-01-15' });
    expect(text).toMatch(/^transaction\[uuid\]=/);
    expect(text).toContain('transaction[amount]=1990');
    expect(text).not.toContain('3dsecure');
  });

  it('test: a command that comes twice creates one delivery and makes one attempt', async () => {
    const metrics = dispatcher.get(DispatcherMetrics);
    const standInsDropped = async () =>
      (await metrics.scheduled.get()).values.find((value) => value.labels.decision === 'stand_in_dropped')!.value;
    const droppedBefore = await standInsDropped();
    const hook = await createWebhook({ merchantId, url: `${receiver.url}/test-twice` });
    const body: DispatcherCommand = {
      v: 1,
      type: 'webhook.test',
      deliveryId: randomUUIDv7(),
      webhookId: hook.id,
      merchantId,
      requestedAt: new Date().toISOString(),
    };
    // Published twice, as a publisher that did not hear the broker's confirmation publishes again.
    for (let i = 0; i < 2; i += 1) {
      await amqp.publish(EXCHANGES.commands, body.type, Buffer.from(JSON.stringify(body)), { messageId: 'twice' });
    }
    await waitFor(async () => (await logsOf(hook.id)).length === 1, { what: 'the test attempt' });
    // The second found the delivery recorded and queued a stand-in, dropped after the guard delay: attempt 1 is logged.
    await waitFor(async () => (await standInsDropped()) === droppedBefore + 1, {
      timeoutMs: 20_000,
      what: 'the stand-in of the second command, dropped',
    });
    const { rows } = await db().query('SELECT id FROM webhook_delivery WHERE webhook_id = $1', [hook.id]);
    expect(rows).toEqual([{ id: body.deliveryId }]);
    expect(await logsOf(hook.id)).toHaveLength(1);
    expect(receiver.to('/test-twice')).toHaveLength(1);
  }, 30_000);

  it('test: a webhook deleted since (or not the merchant’s) gets no delivery, and the reason is logged', async () => {
    const gone = randomUUID();
    const deliveryId = await command('webhook.test', gone);
    await waitFor(
      () => warn.mock.calls.some(([line]) => JSON.stringify(line).includes(`test delivery ${deliveryId}: webhook`)),
      { what: 'the warning' },
    );
    expect(await deliveryRow(deliveryId)).toBeUndefined();
  });

  it('resend: each command takes the next number under the row lock, above every number logged', async () => {
    const hook = await createWebhook({ merchantId, url: `${receiver.url}/resend` });
    const deliveryId = await seedDelivery(hook, 1);
    // Five clicks at once: each takes its number under the delivery's row lock, whatever is logged meanwhile.
    await Promise.all(Array.from({ length: 5 }, () => command('delivery.resend', hook.id, deliveryId)));
    await waitFor(async () => (await logsOf(hook.id)).length === 6, { what: 'five resends logged' });
    expect(await manualAttempts(deliveryId)).toEqual([2, 3, 4, 5, 6]);
    const sent = receiver.to('/resend');
    expect(sent.map((request) => request.headers['webhook-id'])).toEqual(Array(5).fill(deliveryId));
    expect(new Set(sent.map((request) => request.body))).toEqual(
      new Set([(await deliveryRow(deliveryId)).body.toString()]),
    );
    expect(await deliveryRow(deliveryId)).toMatchObject({ manual_attempts: 5, last_manual_attempt: 6 });
  });

  it('resend: makes no attempt beyond the 50th, and logs why at warn', async () => {
    const hook = await createWebhook({ merchantId, url: `${receiver.url}/resend-limit` });
    const deliveryId = await seedDelivery(hook, 47);
    warn.mockClear();
    await Promise.all(Array.from({ length: 5 }, () => command('delivery.resend', hook.id, deliveryId)));
    await waitFor(async () => (await logsOf(hook.id)).length === 50, { what: 'three resends logged' });
    const refusals = () =>
      warn.mock.calls.filter(([line]) => JSON.stringify(line).includes(`resend of delivery ${deliveryId} refused`));
    await waitFor(() => refusals().length === 2, { what: 'two refusals' });
    expect(JSON.stringify(refusals()[0][0])).toContain('attempted 50 times already');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await logsOf(hook.id)).toHaveLength(50);
    expect(await manualAttempts(deliveryId)).toEqual([48, 49, 50]);
    expect(receiver.to('/resend-limit')).toHaveLength(3);
  });

  it('resend: a delivery that is not the named webhook’s is not resent', async () => {
    const owner = await createWebhook({ merchantId, url: `${receiver.url}/resend-owner` });
    const other = await createWebhook({ merchantId, url: `${receiver.url}/resend-other` });
    const deliveryId = await seedDelivery(owner, 1);
    await command('delivery.resend', other.id, deliveryId);
    await waitFor(
      () =>
        warn.mock.calls.some(([line]) => JSON.stringify(line).includes(`resend of delivery ${deliveryId}: no such`)),
      { what: 'the warning' },
    );
    expect(await manualAttempts(deliveryId)).toEqual([]);
    expect(receiver.to('/resend-owner')).toHaveLength(0);
    expect(receiver.to('/resend-other')).toHaveLength(0);
  });
});
