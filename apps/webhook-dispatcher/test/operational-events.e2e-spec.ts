import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createHmac, randomUUIDv7 } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { publishRecoverCommand, publishWebhookHealthReport, type AmqpClient } from '#messaging';
import { waitFor } from '#testing';
import { loadWebhookConfigConfig } from '../../webhook-config/src/config/webhook-config.config.js';
import { WebhookService } from '../../webhook-config/src/webhook/webhook.service.js';
import { createWebhookConfigApp } from '../../webhook-config/src/webhook-config.app.js';
import {
  Receiver,
  closeDb,
  createMerchant,
  createWebhook,
  dispatcherEnv,
  logsOf,
  publishEvents,
  startDispatcher,
  testAmqp,
  transactionEvent,
  type ReceivedRequest,
} from './dispatcher.harness.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

/**
 * Operational events (issue #34, CONTRACT §5), end to end with both apps: the dispatcher's health monitor reports a
 * webhook that keeps failing (or answered 410), webhook-config disables it and writes `webhook.disabled` to its outbox,
 * its relay publishes it on `payments.events`, and the dispatcher's fan-out delivers it — signed, logged, its body as
 * the OpenAPI `webhooks` publish it (the receiver checks every body) — to the merchant's other webhooks that selected
 * `webhook`, never to the disabled one. PATCH {enabled} (webhook-config's service) makes `manual` / `webhook.enabled`,
 * and a finished recover `webhook.recovered` with its count.
 */
describe('operational events (e2e: dispatcher and webhook-config, real RabbitMQ and PostgreSQL)', () => {
  let dispatcher: INestApplication;
  let config: NestFastifyApplication;
  let amqp: AmqpClient;
  const receiver = new Receiver();
  let merchantId: string;
  let integrationId: string;
  let watcher: { id: string; secret: string };
  let phpWatcher: { id: string; secret: string };

  /** The operational events the watcher received about `webhookId`, parsed. */
  const eventsAbout = (webhookId: string): Array<{ request: ReceivedRequest; body: Json }> =>
    receiver
      .to('/watcher')
      .map((request) => ({ request, body: JSON.parse(request.body) as Json }))
      .filter(({ body }) => body.webhook?.id === webhookId);

  const waitForEvent = (webhookId: string, predicate: (body: Json) => boolean, what: string) =>
    waitFor(() => eventsAbout(webhookId).find(({ body }) => predicate(body)), { what, timeoutMs: 20_000 });

  beforeAll(async () => {
    await receiver.start();
    const env = dispatcherEnv({ WEBHOOK_TIMEOUT_MS: '800', WEBHOOK_DISABLE_AFTER: '1s' });
    dispatcher = await startDispatcher({ WEBHOOK_TIMEOUT_MS: '800', WEBHOOK_DISABLE_AFTER: '1s' });
    config = await createWebhookConfigApp(loadWebhookConfigConfig(env));
    await config.init();
    amqp = testAmqp('test-operational-events');
    await amqp.waitForConnect();
    ({ merchantId, integrationId } = await createMerchant());
    receiver.setResponder((request) => ({
      status: request.path === '/gone' ? 410 : request.path === '/dead' ? 500 : 200,
    }));
    watcher = await createWebhook({ merchantId, url: `${receiver.url}/watcher`, events: ['webhook'] });
    // The oldest payload version as PHP-Post: the receiver checks that body against its published schema too.
    phpWatcher = await createWebhook({
      merchantId,
      url: `${receiver.url}/php-watcher`,
      events: ['webhook'],
      contentType: 'php-post',
      version: '2025-01-15',
    });
  });
  afterAll(async () => {
    await config?.close();
    await dispatcher?.close();
    await amqp?.close();
    await receiver.stop(); // fails when a body was not as the OpenAPI `webhooks` publish it
    await closeDb();
  });

  it('a webhook that keeps failing is disabled (failing): another webhook gets a signed, logged webhook.disabled; the disabled one nothing about itself', async () => {
    const dead = await createWebhook({ merchantId, url: `${receiver.url}/dead`, retryOnError: false });
    // One failed attempt every 150 ms for 2 s: failing for longer than WEBHOOK_DISABLE_AFTER (1 s here), 13 attempts.
    for (let i = 0; i < 13; i += 1) {
      await publishEvents(amqp, [transactionEvent(merchantId, integrationId)]);
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    const { request, body } = await waitForEvent(dead.id, (b) => b.webhook.state === 'disabled', 'webhook.disabled');
    expect(body).toEqual({
      webhook: {
        id: dead.id,
        name: 'test hook',
        url: `${receiver.url}/dead`,
        state: 'disabled',
        disabledReason: 'failing',
        failingSince: expect.any(String),
        lastSuccessAt: null,
        count: null,
        occurredAt: expect.any(String),
      },
    });
    // Signed like every delivery (Standard Webhooks), and logged for the watcher as a delivered `webhook` event.
    expect(new Webhook(watcher.secret).verify(request.body, request.headers as Record<string, string>)).toEqual(body);
    const logged = await waitFor(
      async () =>
        (await logsOf(watcher.id)).find((log) => log.event_type === 'webhook' && log.request.uuid === dead.id),
      { what: 'the watcher log entry' },
    );
    expect(logged).toMatchObject({ outcome: 'delivered', status: 200, request: { uuid: dead.id, referenceId: null } });
    // Never to the webhook it is about while it is disabled: not sent, not even logged as skipped.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.to('/dead').filter((r) => r.body.includes('"webhook"'))).toEqual([]);
    expect((await logsOf(dead.id)).filter((log) => log.event_type === 'webhook')).toEqual([]);
    expect(eventsAbout(dead.id)).toHaveLength(1);
    // The PHP-Post watcher got it too, as PHP bracket notation, signed with its own secret.
    const php = await waitFor(
      () => receiver.to('/php-watcher').find((r) => decodeURIComponent(r.body).includes(`webhook[id]=${dead.id}`)),
      { what: 'the PHP-Post webhook.disabled' },
    );
    expect(php.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(decodeURIComponent(php.body)).toContain('webhook[disabledReason]=failing');
    expect(decodeURIComponent(php.body)).toContain('webhook[count]=&'); // null: an empty value
    // Standard Webhooks over the exact bytes (the library's verify parses JSON, so by hand here).
    const key = Buffer.from(phpWatcher.secret.slice('whsec_'.length), 'base64');
    const signed = `${String(php.headers['webhook-id'])}.${String(php.headers['webhook-timestamp'])}.${php.body}`;
    const expected = `v1,${createHmac('sha256', key).update(signed).digest('base64')}`;
    expect(String(php.headers['webhook-signature']).split(' ')).toContain(expected);
  });

  it('a webhook answered 410 Gone is disabled at once: webhook.disabled with reason gone', async () => {
    const gone = await createWebhook({ merchantId, url: `${receiver.url}/gone`, retryOnError: true });
    await publishEvents(amqp, [transactionEvent(merchantId, integrationId)]);
    const { body } = await waitForEvent(gone.id, (b) => b.webhook.state === 'disabled', 'webhook.disabled (gone)');
    expect(body.webhook).toMatchObject({ state: 'disabled', disabledReason: 'gone', count: null });
    expect(receiver.to('/gone').filter((r) => r.body.includes('"webhook"'))).toEqual([]);
  });

  it('failing for an hour (the health report the dispatcher sends then): webhook.failing, the webhook still enabled', async () => {
    const failing = await createWebhook({ merchantId, url: `${receiver.url}/failing-hour` });
    // The report the health monitor sends an hour into an episode (driven in lifecycle.e2e-spec.ts): here by hand, as
    // WEBHOOK_DISABLE_AFTER (1 s in this suite) would disable the webhook long before.
    const failingSince = new Date(Date.now() - 3_601_000).toISOString();
    await publishWebhookHealthReport(amqp, {
      type: 'webhook.failing',
      webhookId: failing.id,
      merchantId,
      failingSince,
      failures: 40,
    });
    const { body } = await waitForEvent(failing.id, (b) => b.webhook.state === 'failing', 'webhook.failing');
    expect(body.webhook).toMatchObject({ state: 'failing', disabledReason: null, failingSince, count: null });
    // Once per episode, however often the report arrives.
    await publishWebhookHealthReport(amqp, {
      type: 'webhook.failing',
      webhookId: failing.id,
      merchantId,
      failingSince,
      failures: 41,
    });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(eventsAbout(failing.id)).toHaveLength(1);
  });

  it('PATCH {enabled}: false is webhook.disabled (manual), true webhook.enabled; the webhook hears of its enabling only', async () => {
    const target = await createWebhook({ merchantId, url: `${receiver.url}/target` });
    const webhooks = config.get(WebhookService);
    await webhooks.update(merchantId, target.id, { enabled: false });
    const disabled = await waitForEvent(target.id, (b) => b.webhook.state === 'disabled', 'webhook.disabled (manual)');
    expect(disabled.body.webhook).toMatchObject({ disabledReason: 'manual', count: null });
    await webhooks.update(merchantId, target.id, { enabled: true });
    const enabled = await waitForEvent(target.id, (b) => b.webhook.disabledReason === null, 'webhook.enabled');
    expect(enabled.body.webhook).toMatchObject({ state: 'healthy', disabledReason: null });
    expect(receiver.to('/target').filter((r) => r.body.includes('"disabled"'))).toEqual([]);
  });

  it('a recover that finished is webhook.recovered with the count it sent', async () => {
    let failing = true;
    receiver.setResponder((request) => ({
      status:
        request.path === '/gone' ? 410 : request.path === '/dead' || (request.path === '/flaky' && failing) ? 500 : 200,
    }));
    const flaky = await createWebhook({
      merchantId,
      url: `${receiver.url}/flaky`,
      retryOnError: false,
      events: ['transaction'],
    });
    const since = new Date(Date.now() - 60_000);
    await publishEvents(
      amqp,
      [1, 2].map(() => transactionEvent(merchantId, integrationId)),
    );
    await waitFor(async () => (await logsOf(flaky.id)).length === 2, { what: 'two failed attempts' });
    failing = false;
    await publishRecoverCommand(amqp, {
      type: 'webhook.recover',
      recoverId: randomUUIDv7(),
      webhookId: flaky.id,
      merchantId,
      since: since.toISOString(),
    });
    const { body } = await waitForEvent(flaky.id, (b) => b.webhook.count !== null, 'webhook.recovered');
    expect(body.webhook).toMatchObject({ id: flaky.id, state: 'healthy', disabledReason: null, count: 2 });
  });
});
