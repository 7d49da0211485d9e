import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { isUUID } from 'class-validator';
import { randomUUID } from 'node:crypto';
import { ATTEMPT_HEADER, EXCHANGES, ROUTING_KEYS } from '#messaging';
import { waitFor } from '#testing';
import { AmqpTap } from './support/amqp-tap.js';
import { type Client, newMerchantSession, type RunningApp, startApp } from './support/harness.js';
import { seedDelivery } from './support/log-seed.js';

/** A closed local port: should a dispatcher pick these messages up, it fails at once. */
const CLOSED_PORT_URL = 'http://127.0.0.1:9/webhook';

describe('test deliveries and resends (e2e over HTTP and RabbitMQ)', () => {
  let running: RunningApp;
  let client: Client & { integrationIds: string[] };
  let deliveries: AmqpTap;

  beforeAll(async () => {
    running = await startApp({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
    client = await newMerchantSession(running);
    deliveries = await AmqpTap.bind(EXCHANGES.deliveries, ROUTING_KEYS.deliver);
  });
  afterAll(async () => {
    await deliveries.close();
    await running.close();
  });

  const messageFor = async (deliveryId: string, after = 0) =>
    (await waitFor(() => deliveries.messages.slice(after).find((m) => m.body.deliveryId === deliveryId), {
      what: `a delivery message for ${deliveryId}`,
    }))!;

  /** A new webhook, and a way to seed deliveries of it with `n` failed automatic attempts logged. */
  const webhookWithFailures = async (name: string) => {
    const created = await client.post('/api/webhooks', { name, url: CLOSED_PORT_URL, events: ['transaction'] });
    const webhook = { id: created.body.id as string, merchantId: client.merchantId, url: CLOSED_PORT_URL };
    const start = Date.parse('2026-11-22T10:00:00Z');
    const seeded = (n: number) =>
      seedDelivery(
        running.db,
        webhook,
        Array.from({ length: n }, (_, i) => ({ status: 500, createdAt: new Date(start + i * 1000) })),
      );
    return { webhook, seeded };
  };

  it('test: stores a sample transaction event rendered for the webhook and queues one manual attempt (202)', async () => {
    const created = await client.post('/api/webhooks', {
      name: 'Test me',
      url: CLOSED_PORT_URL,
      events: ['payout', 'transaction'],
      version: '2026-08-20',
      integrationId: client.integrationIds[0],
    });
    const answer = await client.post(`/api/webhooks/${created.body.id}/test`);
    expect(answer.status).toBe(202);
    const { deliveryId } = answer.body;
    expect(isUUID(deliveryId, 7)).toBe(true); // time-ordered, like the deliveries the dispatcher records

    const message = await messageFor(deliveryId);
    expect(message.body).toEqual({ deliveryId, manual: true });
    expect(message.headers[ATTEMPT_HEADER]).toBe(1);

    const [row] = await running.db.query(`SELECT * FROM webhook_delivery WHERE id = $1`, [deliveryId]);
    expect(row).toMatchObject({
      webhook_id: created.body.id,
      merchant_id: client.merchantId,
      event_type: 'transaction',
      url: CLOSED_PORT_URL,
      content_type: 'json',
      version: '2026-08-20',
      retry_on_error: false,
    });
    const body = JSON.parse(row.body.toString('utf8'));
    expect(Object.keys(body)).toEqual(['transaction']);
    expect(body.transaction).toMatchObject({
      status: 'confirmed',
      psp: 'Payrexx Direct',
      type: 'e-commerce',
      paymentMethod: 'visa',
      amount: 1990,
      currency: 'CHF',
      integrationId: client.integrationIds[0],
    });
    expect(body.transaction['3dsecure']).toEqual({ eci: '05', source: '3ds', version: '2.2.0', flow: 'challenge' });
    expect(row.subject).toEqual({ psp: 'Payrexx Direct', type: 'e-commerce', uuid: body.transaction.uuid });
  });

  it('test: a webhook without transactions is sent a sample of an event it receives', async () => {
    const sampleOf = async (events: string[]) => {
      const created = await client.post('/api/webhooks', { name: 'Kinds', url: CLOSED_PORT_URL, events });
      const { deliveryId } = (await client.post(`/api/webhooks/${created.body.id}/test`)).body;
      const [row] = await running.db.query(`SELECT * FROM webhook_delivery WHERE id = $1`, [deliveryId]);
      return { row, body: JSON.parse(row.body.toString('utf8')) };
    };

    const payout = await sampleOf(['payout']);
    expect(payout.row.event_type).toBe('payout');
    expect(payout.body).toEqual({
      payout: {
        id: expect.any(String),
        status: 'initialised',
        amount: 1990,
        currency: 'CHF',
        createdAt: expect.any(String),
      },
    });
    expect(payout.row.subject).toEqual({ uuid: payout.body.payout.id });

    const subscription = await sampleOf(['payout', 'subscription']);
    expect(subscription.row.event_type).toBe('subscription');
    expect(Object.keys(subscription.body)).toEqual(['subscription']);
    expect(subscription.body.subscription).toMatchObject({
      status: 'active',
      event: 'renewed',
      referenceId: 'webhook-test',
      amount: 1990,
      currency: 'CHF',
      integrationId: null,
    });
    expect(subscription.row.subject).toEqual({ uuid: subscription.body.subscription.id });
  });

  it('test: renders PHP form posts and the older version as configured (no 3dsecure key in 2025-01-15)', async () => {
    const created = await client.post('/api/webhooks', {
      name: 'PHP shop',
      url: CLOSED_PORT_URL,
      events: ['transaction'],
      contentType: 'php-post',
      version: '2025-01-15',
    });
    const { deliveryId } = (await client.post(`/api/webhooks/${created.body.id}/test`)).body;
    const [row] = await running.db.query(`SELECT body, content_type, version FROM webhook_delivery WHERE id = $1`, [
      deliveryId,
    ]);
    const text = row.body.toString('utf8');
    expect(row).toMatchObject({ content_type: 'php-post', version: '2025-01-15' });
    expect(text).toMatch(/^transaction\[uuid\]=/);
    expect(text).toContain('transaction[amount]=1990');
    expect(text).not.toContain('3dsecure');
    const fresh = await client.post(`/api/webhooks/${created.body.id}/test`);
    expect(fresh.body.deliveryId).not.toBe(deliveryId);
    const [{ events }] = await running.db.query(
      `SELECT count(DISTINCT event_id)::int AS events FROM webhook_delivery WHERE webhook_id = $1`,
      [created.body.id],
    );
    expect(events).toBe(2);
  });

  it('resend: queues that entry’s delivery again as the next attempt, manual (202)', async () => {
    const created = await client.post('/api/webhooks', {
      name: 'Resend me',
      url: CLOSED_PORT_URL,
      events: ['transaction'],
    });
    const webhook = { id: created.body.id, merchantId: client.merchantId, url: CLOSED_PORT_URL };
    const { deliveryId, logIds } = await seedDelivery(running.db, webhook, [
      { status: 500, createdAt: new Date('2026-11-22T10:00:00Z') },
      { status: 404, createdAt: new Date('2026-11-22T10:01:00Z') },
      { status: 404, createdAt: new Date('2026-11-22T10:16:00Z') },
    ]);
    const before = deliveries.messages.length;
    const answer = await client.post(`/api/webhooks/${webhook.id}/logs/${logIds[0]}/resend`);
    expect(answer.status).toBe(202);
    expect(answer.body).toEqual({ deliveryId, attempt: 4 });
    const message = await messageFor(deliveryId, before);
    expect(message.body).toEqual({ deliveryId, manual: true });
    expect(message.headers[ATTEMPT_HEADER]).toBe(4);
  });

  it('resend: 404 for an unknown log entry, or one of another webhook or merchant', async () => {
    const mine = await client.post('/api/webhooks', { name: 'Mine', url: CLOSED_PORT_URL, events: ['transaction'] });
    const sibling = await client.post('/api/webhooks', {
      name: 'Sibling',
      url: CLOSED_PORT_URL,
      events: ['transaction'],
    });
    const { logIds } = await seedDelivery(
      running.db,
      { id: sibling.body.id, merchantId: client.merchantId, url: CLOSED_PORT_URL },
      [{ status: 500, createdAt: new Date() }],
    );
    expect((await client.post(`/api/webhooks/${mine.body.id}/logs/${randomUUID()}/resend`)).status).toBe(404);
    expect((await client.post(`/api/webhooks/${mine.body.id}/logs/${logIds[0]}/resend`)).status).toBe(404);
    expect((await client.post(`/api/webhooks/${mine.body.id}/logs/not-an-id/resend`)).status).toBe(404);
    const other = await newMerchantSession(running);
    expect((await other.post(`/api/webhooks/${sibling.body.id}/logs/${logIds[0]}/resend`)).status).toBe(404);
  });

  it('resend: refuses a delivery already attempted 50 times (409), queuing nothing', async () => {
    const { webhook, seeded } = await webhookWithFailures('Busy');
    const below = await seeded(49);
    const resent = await client.post(`/api/webhooks/${webhook.id}/logs/${below.logIds[0]}/resend`);
    expect(resent.status).toBe(202);
    expect(resent.body).toEqual({ deliveryId: below.deliveryId, attempt: 50 });

    const full = await seeded(50);
    const before = deliveries.messages.length;
    const refused = await client.post(`/api/webhooks/${webhook.id}/logs/${full.logIds[0]}/resend`);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ type: 'urn:problem:resend-limit', detail: expect.stringMatching(/50 times/) });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(deliveries.messages.slice(before).filter((m) => m.body.deliveryId === full.deliveryId)).toEqual([]);
  });

  it('resend: clicks in quick succession each take their own place and number, and the limit holds for them', async () => {
    const { webhook, seeded } = await webhookWithFailures('Clicky');
    // Nothing the dispatcher logs comes in between: the places and numbers must come from the requests alone.
    const one = await seeded(1);
    const before = deliveries.messages.length;
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => client.post(`/api/webhooks/${webhook.id}/logs/${one.logIds[0]}/resend`)),
    );
    expect(answers.map((answer) => answer.status)).toEqual([202, 202, 202, 202, 202]);
    expect(answers.map((answer) => answer.body.attempt).sort()).toEqual([2, 3, 4, 5, 6]);
    const numbers = await waitFor(() => {
      const ours = deliveries.messages.slice(before).filter((m) => m.body.deliveryId === one.deliveryId);
      return ours.length === 5 && ours.map((m) => m.headers[ATTEMPT_HEADER] as number);
    });
    expect(numbers.sort()).toEqual([2, 3, 4, 5, 6]);

    const nearlyFull = await seeded(47);
    const rush = await Promise.all(
      Array.from({ length: 5 }, () => client.post(`/api/webhooks/${webhook.id}/logs/${nearlyFull.logIds[0]}/resend`)),
    );
    expect(rush.map((answer) => answer.status).sort()).toEqual([202, 202, 202, 409, 409]);
    expect(
      rush
        .filter((answer) => answer.status === 202)
        .map((answer) => answer.body.attempt)
        .sort(),
    ).toEqual([48, 49, 50]);
  });

  it('test and resend require the CSRF token', async () => {
    const created = await client.post('/api/webhooks', { name: 'CSRF', url: CLOSED_PORT_URL, events: ['transaction'] });
    expect(
      (await client.request('POST', `/api/webhooks/${created.body.id}/test`, undefined, { csrf: false })).status,
    ).toBe(403);
  });

  it('routes that take no body accept an empty one sent as application/json (many clients always send the header)', async () => {
    const created = await client.post('/api/webhooks', {
      name: 'Header',
      url: CLOSED_PORT_URL,
      events: ['transaction'],
    });
    // An empty body, sent (Content-Length: 0) with the JSON content type.
    const bare = async (method: string, path: string) => {
      const response = await fetch(`${running.baseUrl}${path}`, {
        method,
        body: '',
        headers: { cookie: client.cookie, 'x-csrf-token': client.csrfToken, 'content-type': 'application/json' },
      });
      const text = await response.text();
      return { status: response.status, text, body: text ? JSON.parse(text) : undefined };
    };
    const test = await bare('POST', `/api/webhooks/${created.body.id}/test`);
    expect([test.status, test.text]).toEqual([202, expect.stringContaining('deliveryId')]);
    expect((await bare('POST', `/api/webhooks/${created.body.id}/secret/rotate`)).status).toBe(200);
    // A PATCH with nothing in it changes nothing.
    const unchanged = await bare('PATCH', `/api/webhooks/${created.body.id}`);
    expect([unchanged.status, unchanged.body.name, unchanged.body.events]).toEqual([200, 'Header', ['transaction']]);
    expect((await bare('DELETE', `/api/webhooks/${created.body.id}`)).status).toBe(204);
    // A route that needs a body still refuses an empty one, naming what is missing.
    const empty = await bare('POST', '/api/webhooks');
    expect(empty.status).toBe(400);
    expect(empty.body.errors.map((error: { field: string }) => error.field)).toEqual(
      expect.arrayContaining(['name', 'url', 'events']),
    );
  });
});
