import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import amqplib from 'amqplib';
import { randomUUID } from 'node:crypto';
import { publishWebhookChanged, QUEUES, type AmqpClient, type WebhookHealthReport } from '#messaging';
import { PlatformMetrics } from '#platform';
import { testEnv, waitFor } from '#testing';
import { DeliveryLogWriter } from '../src/delivery/delivery-log.writer.js';
import { attemptRecord } from './attempt-record.fixture.js';
import {
  Receiver,
  closeDb,
  createMerchant,
  createWebhook,
  db,
  logsOf,
  publishEvents,
  startDispatcher,
  testAmqp,
  transactionEvent,
} from './dispatcher.harness.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The health the dispatcher keeps for a webhook. */
async function healthOf(webhookId: string) {
  const { rows } = await db().query(
    `SELECT last_success_at, failing_since, failures_in_a_row, gone_at FROM webhook_health WHERE webhook_id = $1`,
    [webhookId],
  );
  return rows[0] as
    | { last_success_at: Date | null; failing_since: Date | null; failures_in_a_row: number; gone_at: Date | null }
    | undefined;
}

/** Takes the health reports waiting for webhook-config (config.webhook-health) that are about `webhookId`. */
async function reportsAbout(webhookId: string): Promise<WebhookHealthReport[]> {
  const connection = await amqplib.connect(testEnv().amqpUrl);
  try {
    const channel = await connection.createChannel();
    const found: WebhookHealthReport[] = [];
    for (;;) {
      const message = await channel.get(QUEUES.webhookHealth, { noAck: false });
      if (!message) return found;
      const report = JSON.parse(message.content.toString()) as WebhookHealthReport;
      if (report.webhookId === webhookId) {
        found.push(report);
        channel.ack(message);
      } else channel.nack(message, false, true);
      if (found.length > 50) return found;
    }
  } finally {
    await connection.close();
  }
}

describe('webhook health episodes: 410 Gone, enabling again, out-of-order log entries, gauges (real RabbitMQ, PostgreSQL)', () => {
  let dispatcher: INestApplication;
  let amqp: AmqpClient;
  const receiver = new Receiver();
  let merchantId: string;
  let integrationId: string;

  beforeAll(async () => {
    await receiver.start();
    dispatcher = await startDispatcher({ WEBHOOK_TIMEOUT_MS: '800', WEBHOOK_DISABLE_AFTER: '1s' });
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

  it('an attempt answered 410 Gone is logged failed with its status, never repeated, and reported once as webhook.gone', async () => {
    receiver.setResponder((request) => ({ status: request.path === '/gone' ? 410 : 200 }));
    // Repeats every 50 ms (the harness's WEBHOOK_RETRY_DELAYS) for any other failure.
    const hook = await createWebhook({ merchantId, url: `${receiver.url}/gone`, retryOnError: true });
    await publishEvents(amqp, [transactionEvent(merchantId, integrationId)]);
    await waitFor(async () => (await logsOf(hook.id)).length === 1, { what: 'the attempt' });
    await sleep(1_000); // ten repeats would have been made by now
    const logs = await logsOf(hook.id);
    expect(logs).toEqual([
      expect.objectContaining({ attempt: 1, outcome: 'failed', status: 410, next_attempt_at: null }),
    ]);
    expect(receiver.requests.filter((request) => request.path === '/gone')).toHaveLength(1);
    const answeredAt = (await healthOf(hook.id))!.gone_at!;
    expect(answeredAt).toBeInstanceOf(Date);
    const reports = await waitFor(
      async () => {
        const found = await reportsAbout(hook.id);
        return found.length > 0 ? found : undefined;
      },
      { what: 'the report' },
    );
    expect(reports).toEqual([
      {
        v: 1,
        type: 'webhook.gone',
        webhookId: hook.id,
        merchantId,
        failingSince: answeredAt.toISOString(),
        failures: 1,
      },
    ]);
  });

  it('a webhook enabled again by hand and still failing is reported to be disabled WEBHOOK_DISABLE_AFTER after the enabling', async () => {
    receiver.setResponder((request) => ({ status: request.path === '/still-dead' ? 500 : 200 }));
    const hook = await createWebhook({ merchantId, url: `${receiver.url}/still-dead`, retryOnError: false });
    const fail = async (count: number) => {
      for (let i = 0; i < count; i += 1) {
        await publishEvents(amqp, [transactionEvent(merchantId, integrationId)]);
        await sleep(120);
      }
    };
    await fail(12);
    const first = await waitFor(
      async () => {
        const found = await reportsAbout(hook.id);
        return found.length > 0 ? found : undefined;
      },
      { what: 'the first report to disable it' },
    );
    const episode = (await healthOf(hook.id))!.failing_since!;
    expect(first.map((report) => [report.type, report.failingSince])).toEqual([
      ['webhook.failing-too-long', episode.toISOString()],
    ]);
    // webhook-config disabled it; its merchant enables it again (still failing): a new episode from the enabling.
    const enabledAt = new Date();
    await db().query(`UPDATE webhook SET enabled = true, disabled_reason = NULL, enabled_at = $2 WHERE id = $1`, [
      hook.id,
      enabledAt,
    ]);
    await publishWebhookChanged(amqp, { webhookId: hook.id, merchantId });
    await sleep(200);
    await fail(3); // within WEBHOOK_DISABLE_AFTER of the enabling: nothing yet
    await sleep(200);
    expect(await reportsAbout(hook.id)).toEqual([]);
    await sleep(1_000);
    await fail(2);
    const second = await waitFor(
      async () => {
        const found = await reportsAbout(hook.id);
        return found.length > 0 ? found : undefined;
      },
      { what: 'the report of the new episode' },
    );
    expect(second.map((report) => [report.type, report.failingSince])).toEqual([
      ['webhook.failing-too-long', enabledAt.toISOString()],
    ]);
    // The health itself still tells the first failure after the last success.
    expect((await healthOf(hook.id))!.failing_since).toEqual(episode);
  });

  it('keeps the health by the attempts’ times when log entries are written out of order', async () => {
    const writer = dispatcher.get(DeliveryLogWriter);
    const hook = await createWebhook({ merchantId, url: `${receiver.url}/out-of-order`, retryOnError: false });
    const base = Date.now() - 60_000;
    const at = (seconds: number) => new Date(base + seconds * 1_000);
    const entry = (seconds: number, outcome: 'delivered' | 'failed') =>
      attemptRecord({ webhookId: hook.id, deliveryId: randomUUID(), attempt: 1, outcome, at: base + seconds * 1_000 });
    // A success at 20 s, then a failure of 10 s written late: it was before the success, so the webhook is healthy.
    await writer.write(entry(20, 'delivered'));
    await writer.write(entry(10, 'failed'));
    expect(await healthOf(hook.id)).toMatchObject({
      last_success_at: at(20),
      failing_since: null,
      failures_in_a_row: 0,
    });
    // Failures at 30 and 40 s: failing since 30 s.
    await writer.write(entry(30, 'failed'));
    await writer.write(entry(40, 'failed'));
    expect(await healthOf(hook.id)).toMatchObject({ failing_since: at(30), failures_in_a_row: 2 });
    // A success at 35 s written after them: the failure at 40 s is still the latest attempt, failing since then.
    await writer.write(entry(35, 'delivered'));
    expect(await healthOf(hook.id)).toMatchObject({
      last_success_at: at(35),
      failing_since: at(40),
      failures_in_a_row: 1,
    });
    // A success at 25 s written late: older than the last success (35 s), it changes nothing.
    await writer.write(entry(25, 'delivered'));
    expect(await healthOf(hook.id)).toMatchObject({
      last_success_at: at(35),
      failing_since: at(40),
      failures_in_a_row: 1,
    });
    // A success at 50 s: healthy.
    await writer.write(entry(50, 'delivered'));
    expect(await healthOf(hook.id)).toMatchObject({
      last_success_at: at(50),
      failing_since: null,
      failures_in_a_row: 0,
    });
  });

  it('the failing gauges leave out deleted webhooks', async () => {
    receiver.setResponder((request) => ({ status: request.path === '/deleted' ? 500 : 200 }));
    const metrics = dispatcher.get(PlatformMetrics);
    const lastAttemptFailed = async () =>
      Number(/^webhooks_last_attempt_failed (\S+)$/m.exec(await metrics.registry.metrics())?.[1]);
    const hook = await createWebhook({ merchantId, url: `${receiver.url}/deleted`, retryOnError: false });
    await publishEvents(amqp, [transactionEvent(merchantId, integrationId)]);
    await waitFor(async () => (await healthOf(hook.id))?.failing_since, { what: 'a failure' });
    const counted = await lastAttemptFailed();
    // Deleted in webhook-config; its health row stays until the dispatcher deletes its deliveries.
    await db().query(`DELETE FROM webhook WHERE id = $1`, [hook.id]);
    expect(await healthOf(hook.id)).toBeDefined();
    expect(await lastAttemptFailed()).toBe(counted - 1);
  });
});
