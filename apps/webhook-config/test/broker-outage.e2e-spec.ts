import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { EXCHANGES } from '#messaging';
import { rabbitmqctl, waitFor } from '#testing';
import { AmqpTap } from './support/amqp-tap.js';
import { newMerchantSession, type RunningApp, startApp } from './support/harness.js';
import { seedDelivery } from './support/log-seed.js';

// Nothing is delivered in this test (no dispatcher runs): the URL only has to be one the settings accept.
const CLOSED_PORT_URL = 'http://127.0.0.1:1024/webhook';

/** Test and resend while RabbitMQ is away: a clear 503, and the request goes through once the broker is back. */
describe('resend during a broker outage (e2e over HTTP and RabbitMQ)', () => {
  let running: RunningApp;

  beforeAll(async () => {
    running = await startApp({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
  });
  afterAll(async () => {
    await running.close();
  });

  it('answers 503 when the command cannot be queued, and 202 once the broker is back', async () => {
    const client = await newMerchantSession(running);
    const created = await client.post('/api/webhooks', {
      name: 'Outage',
      url: CLOSED_PORT_URL,
      events: ['transaction'],
    });
    const webhook = { id: created.body.id, merchantId: client.merchantId, url: CLOSED_PORT_URL };
    const { deliveryId, logIds } = await seedDelivery(running.db, webhook, [{ status: 500, createdAt: new Date() }]);
    const resend = () => client.post(`/api/webhooks/${webhook.id}/logs/${logIds[0]}/resend`);

    await rabbitmqctl('stop_app');
    try {
      // The publish waits for the broker up to its confirm timeout (10 s), then gives up.
      const refused = await resend();
      expect(refused.status).toBe(503);
      expect(refused.body).toMatchObject({ type: 'urn:problem:unavailable', detail: expect.stringMatching(/queued/) });
    } finally {
      await rabbitmqctl('start_app');
    }
    const commands = await AmqpTap.bind(EXCHANGES.commands, '#');
    let accepted;
    for (const deadline = Date.now() + 30_000; Date.now() < deadline;) {
      accepted = await resend();
      if (accepted.status === 202) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    try {
      expect([accepted?.status, accepted?.body]).toEqual([202, { deliveryId }]);
      await waitFor(() => commands.messages.some((m) => m.body.deliveryId === deliveryId), { what: 'the command' });
    } finally {
      await commands.close();
    }
  }, 90_000);
});
