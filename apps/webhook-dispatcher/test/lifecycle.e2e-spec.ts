import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import amqplib from 'amqplib';
import {
  publishRecoverCommand,
  publishWebhookChanged,
  QUEUES,
  type AmqpClient,
  type WebhookHealthReport,
} from '#messaging';
import { randomUUIDv7 } from 'node:crypto';
import { testEnv, waitFor } from '#testing';
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

/** The health the dispatcher keeps for a webhook, as webhook-config reads it (its view). */
async function healthOf(webhookId: string) {
  const { rows } = await db().query(
    `SELECT v.last_success_at, v.failing_since, v.attempts_24h, v.failures_24h, h.failures_in_a_row, h.last_attempt_at
       FROM delivery.webhook_health_for_webhook_config v JOIN delivery.webhook_health h USING (webhook_id)
      WHERE v.webhook_id = $1`,
    [webhookId],
  );
  return rows[0] as
    | {
        last_success_at: Date | null;
        failing_since: Date | null;
        attempts_24h: number;
        failures_24h: number;
        failures_in_a_row: number;
        last_attempt_at: Date;
      }
    | undefined;
}

describe('webhook-dispatcher delivery lifecycle: disabled webhooks and health (real RabbitMQ, PostgreSQL)', () => {
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

  it('sends nothing to a disabled webhook and logs each event once as skipped, without a status, to recover later', async () => {
    receiver.setResponder(() => ({ status: 200 }));
    const off = await createWebhook({ merchantId, url: `${receiver.url}/off`, enabled: false, retryOnError: true });
    const on = await createWebhook({ merchantId, url: `${receiver.url}/on` });
    const event = transactionEvent(merchantId, integrationId);
    await publishEvents(amqp, [event]);
    await waitFor(async () => (await logsOf(off.id)).length === 1 && (await logsOf(on.id)).length === 1, {
      what: 'one entry each',
    });
    // The same event again (a broker redelivery): still one entry, still nothing sent.
    await publishEvents(amqp, [event]);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const [skipped] = await logsOf(off.id);
    expect(await logsOf(off.id)).toHaveLength(1);
    expect(skipped).toMatchObject({ attempt: 1, outcome: 'skipped', status: null, next_attempt_at: null });
    expect(skipped.request).toMatchObject({ url: `${receiver.url}/off`, referenceId: 'order-1001' });
    expect(receiver.to('/off')).toHaveLength(0);
    // The delivery is kept (recover sends it later), and a skipped entry is no attempt: no health yet.
    const { rows } = await db().query(`SELECT count(*)::int AS n FROM webhook_delivery WHERE webhook_id = $1`, [
      off.id,
    ]);
    expect(rows[0].n).toBe(1);
    expect(await healthOf(off.id)).toBeUndefined();
  });

  it('a repeat that was waiting when its webhook was disabled is not sent, but logged as skipped', async () => {
    receiver.setResponder((request) => ({ status: request.path === '/disabled-later' ? 500 : 200 }));
    const hook = await createWebhook({ merchantId, url: `${receiver.url}/disabled-later`, retryOnError: true });
    // Repeats every 50 ms (the harness's WEBHOOK_RETRY_DELAYS): disable after the first failures.
    await publishEvents(amqp, [transactionEvent(merchantId, integrationId)]);
    await waitFor(async () => (await logsOf(hook.id)).length >= 2, { what: 'two failed attempts' });
    await db().query(`UPDATE webhook SET enabled = false, disabled_reason = 'manual' WHERE id = $1`, [hook.id]);
    await publishWebhookChanged(amqp, { webhookId: hook.id, merchantId });
    await waitFor(async () => (await logsOf(hook.id)).some((log) => log.outcome === 'skipped'), {
      what: 'a skipped repeat',
    });
    const sent = receiver.to('/disabled-later').length;
    await new Promise((resolve) => setTimeout(resolve, 500));
    const logs = await logsOf(hook.id);
    // The last entry is the skip; no request after it, and nothing scheduled.
    expect(logs.at(-1)).toMatchObject({ outcome: 'skipped', status: null, next_attempt_at: null });
    expect(logs.filter((log) => log.outcome === 'skipped')).toHaveLength(1);
    expect(logs.filter((log) => log.outcome === 'failed')).toHaveLength(sent);
    expect(receiver.to('/disabled-later')).toHaveLength(sent);
  });

  it('keeps the health: failing since the first failure after the last success, counts of the last 24 hours', async () => {
    let failing = true;
    receiver.setResponder((request) => ({ status: request.path === '/health' && failing ? 503 : 200 }));
    const hook = await createWebhook({ merchantId, url: `${receiver.url}/health`, retryOnError: false });
    // Three failed deliveries (one attempt each), then a success, then two failures.
    await publishEvents(
      amqp,
      [1, 2, 3].map(() => transactionEvent(merchantId, integrationId)),
    );
    await waitFor(async () => (await healthOf(hook.id))?.attempts_24h === 3, { what: 'three attempts counted' });
    const failingFor = await healthOf(hook.id);
    const failed = await logsOf(hook.id);
    expect(failingFor).toMatchObject({ last_success_at: null, failures_24h: 3, failures_in_a_row: 3 });
    expect(failingFor!.failing_since).toEqual(new Date(Math.min(...(await createdAtOf(failed.map((log) => log.id))))));

    failing = false;
    await publishEvents(amqp, [transactionEvent(merchantId, integrationId)]);
    await waitFor(async () => (await healthOf(hook.id))?.attempts_24h === 4, { what: 'the success counted' });
    const recovered = await healthOf(hook.id);
    expect(recovered).toMatchObject({ failing_since: null, failures_in_a_row: 0, failures_24h: 3 });
    expect(recovered!.last_success_at).toEqual(recovered!.last_attempt_at);

    failing = true;
    await publishEvents(amqp, [transactionEvent(merchantId, integrationId)]);
    await waitFor(async () => (await healthOf(hook.id))?.attempts_24h === 5, { what: 'a new failure counted' });
    const again = await healthOf(hook.id);
    expect(again).toMatchObject({ failures_in_a_row: 1, failures_24h: 4 });
    expect(again!.failing_since).toEqual(again!.last_attempt_at);
    expect(again!.failing_since!.getTime()).toBeGreaterThan(recovered!.last_success_at!.getTime());
  });

  it('recover sends again exactly the events since a time whose latest outcome is failed or skipped, under their webhook-id', async () => {
    let failing = true;
    receiver.setResponder((request) => ({ status: request.path === '/recover' && failing ? 500 : 200 }));
    const hook = await createWebhook({ merchantId, url: `${receiver.url}/recover`, retryOnError: false });
    // Two that fail, one delivered (the receiver answers 200 to it), then two while disabled (skipped).
    await publishEvents(
      amqp,
      [1, 2].map(() => transactionEvent(merchantId, integrationId)),
    );
    await waitFor(async () => (await logsOf(hook.id)).length === 2, { what: 'two failed attempts' });
    const since = new Date(Date.now() - 60_000);
    failing = false;
    await publishEvents(amqp, [transactionEvent(merchantId, integrationId)]);
    await waitFor(async () => (await logsOf(hook.id)).length === 3, { what: 'one delivered' });
    await db().query(`UPDATE webhook SET enabled = false, disabled_reason = 'manual' WHERE id = $1`, [hook.id]);
    await publishWebhookChanged(amqp, { webhookId: hook.id, merchantId });
    await publishEvents(
      amqp,
      [1, 2].map(() => transactionEvent(merchantId, integrationId)),
    );
    await waitFor(async () => (await logsOf(hook.id)).filter((log) => log.outcome === 'skipped').length === 2, {
      what: 'two skipped',
    });
    const logs = await logsOf(hook.id);
    const toRecover = logs.filter((log) => log.outcome !== 'delivered').map((log) => log.delivery_id);
    const sentBefore = receiver.to('/recover').length;

    await db().query(`UPDATE webhook SET enabled = true, disabled_reason = NULL WHERE id = $1`, [hook.id]);
    await publishWebhookChanged(amqp, { webhookId: hook.id, merchantId });
    await publishRecoverCommand(amqp, {
      type: 'webhook.recover',
      recoverId: randomUUIDv7(),
      webhookId: hook.id,
      merchantId,
      since: since.toISOString(),
    });
    await waitFor(() => receiver.to('/recover').length === sentBefore + 4, { what: 'four sent again' });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const again = receiver.to('/recover').slice(sentBefore);
    expect(again).toHaveLength(4);
    expect(again.map((request) => request.headers['webhook-id']).sort()).toEqual([...toRecover].sort());
    const after = await logsOf(hook.id);
    expect(after.filter((log) => log.outcome === 'delivered')).toHaveLength(5);
  });

  it('reports a webhook failing for an hour, and one failing for WEBHOOK_DISABLE_AFTER with 10 attempts, once per episode', async () => {
    receiver.setResponder((request) => ({ status: request.path === '/dead' ? 500 : 200 }));
    const hook = await createWebhook({ merchantId, url: `${receiver.url}/dead`, retryOnError: false });
    // One failed attempt every 150 ms for 2 s: failing for longer than WEBHOOK_DISABLE_AFTER (1 s here), 13 attempts.
    for (let i = 0; i < 13; i += 1) {
      await publishEvents(amqp, [transactionEvent(merchantId, integrationId)]);
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    await waitFor(async () => (await logsOf(hook.id)).length === 13, { what: '13 attempts' });
    const failingSince = (await healthOf(hook.id))!.failing_since!;
    const reports = await waitFor(
      async () => {
        const found = await reportsAbout(hook.id);
        return found.length > 0 ? found : undefined;
      },
      { what: 'the report to disable it' },
    );
    expect(reports).toEqual([
      {
        v: 1,
        type: 'webhook.failing-too-long',
        webhookId: hook.id,
        merchantId,
        failingSince: failingSince.toISOString(),
        failures: expect.any(Number),
      },
    ]);
    expect(reports[0].failures).toBeGreaterThanOrEqual(10);
    // Once per episode: more failures report nothing more...
    await publishEvents(amqp, [transactionEvent(merchantId, integrationId)]);
    await waitFor(async () => (await logsOf(hook.id)).length === 14, { what: 'a 14th attempt' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await reportsAbout(hook.id)).toEqual([]);
    // ... until it has failed for an hour (its episode moved back here), which is reported once too.
    const anHourAgo = new Date(Date.now() - 3_601_000);
    await db().query(`UPDATE webhook_health SET failing_since = $2 WHERE webhook_id = $1`, [hook.id, anHourAgo]);
    await publishEvents(
      amqp,
      [1, 2].map(() => transactionEvent(merchantId, integrationId)),
    );
    await waitFor(async () => (await logsOf(hook.id)).length === 16, { what: 'two more attempts' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const later = await reportsAbout(hook.id);
    // The moved episode is a new one for both reports.
    expect(later.map((report) => [report.type, report.failingSince]).sort()).toEqual([
      ['webhook.failing', anHourAgo.toISOString()],
      ['webhook.failing-too-long', anHourAgo.toISOString()],
    ]);
  });
});

/** The created_at of log entries, as stored. */
async function createdAtOf(ids: string[]): Promise<number[]> {
  const { rows } = await db().query(`SELECT created_at FROM webhook_log WHERE id = ANY($1::uuid[])`, [ids]);
  return rows.map((row: { created_at: Date }) => row.created_at.getTime());
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
