import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { isUUID } from 'class-validator';
import { randomUUID } from 'node:crypto';
import { EXCHANGES } from '#messaging';
import { waitFor } from '#testing';
import { AmqpTap } from './support/amqp-tap.js';
import { type Client, newMerchantSession, type RunningApp, startApp } from './support/harness.js';
import { seedDelivery, tenOClockDaysAgo } from './support/log-seed.js';

/**
 * A local port the settings accept and nothing listens on: should a dispatcher (another test file's) pick these
 * commands up, its attempts fail at once.
 */
const CLOSED_PORT_URL = 'http://127.0.0.1:1024/webhook';

/**
 * webhook-config's side of test and resend: it checks the request against what the merchant may see and asks the
 * dispatcher with a command on webhooks.commands. What the dispatcher makes of a command (the sample event, the
 * attempt's number, the limit it enforces again) is tested with the dispatcher (commands.e2e-spec.ts).
 */
describe('test deliveries and resends (e2e over HTTP and RabbitMQ)', () => {
  let running: RunningApp;
  let client: Client & { integrationIds: string[] };
  let commands: AmqpTap;

  beforeAll(async () => {
    running = await startApp({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
    client = await newMerchantSession(running);
    commands = await AmqpTap.bind(EXCHANGES.commands, '#');
  });
  afterAll(async () => {
    await commands.close();
    await running.close();
  });

  const commandsFor = (deliveryId: string, after = 0) =>
    commands.messages.slice(after).filter((m) => m.body.deliveryId === deliveryId);
  const commandFor = async (deliveryId: string, after = 0) =>
    (await waitFor(() => commandsFor(deliveryId, after)[0], { what: `a command for delivery ${deliveryId}` }))!;

  /** A new webhook, and a way to seed deliveries of it with `n` failed automatic attempts logged. */
  const webhookWithFailures = async (name: string) => {
    const created = await client.post('/api/webhooks', { name, url: CLOSED_PORT_URL, events: ['transaction'] });
    const webhook = { id: created.body.id as string, merchantId: client.merchantId, url: CLOSED_PORT_URL };
    const start = tenOClockDaysAgo(4);
    const seeded = (n: number) =>
      seedDelivery(
        running.db,
        webhook,
        Array.from({ length: n }, (_, i) => ({ status: 500, createdAt: new Date(start + i * 1000) })),
      );
    return { webhook, seeded };
  };

  it('test: asks the dispatcher for a test delivery under a new id, and answers that id (202)', async () => {
    const created = await client.post('/api/webhooks', {
      name: 'Test me',
      url: CLOSED_PORT_URL,
      events: ['payout', 'transaction'],
      version: '2026-08-20',
      integrationId: client.integrationIds[0],
    });
    const answer = await client.post(`/api/webhooks/${created.body.id}/test`);
    expect(answer.status).toBe(202);
    expect(Object.keys(answer.body)).toEqual(['deliveryId']);
    const { deliveryId } = answer.body;
    expect(isUUID(deliveryId, 7)).toBe(true); // time-ordered, like the deliveries the dispatcher records

    const command = await commandFor(deliveryId);
    expect(command.body).toEqual({
      v: 1,
      type: 'webhook.test',
      deliveryId,
      webhookId: created.body.id,
      merchantId: client.merchantId,
      requestedAt: expect.any(String),
    });
    expect(Math.abs(Date.parse(command.body.requestedAt) - Date.now())).toBeLessThan(60_000);

    // Each test is a delivery of its own.
    const again = await client.post(`/api/webhooks/${created.body.id}/test`);
    expect(again.status).toBe(202);
    expect(again.body.deliveryId).not.toBe(deliveryId);
    await commandFor(again.body.deliveryId);
    expect(commandsFor(deliveryId)).toHaveLength(1);
  });

  it('test: 404 for a webhook of another merchant, asking nothing', async () => {
    const created = await client.post('/api/webhooks', { name: 'Mine', url: CLOSED_PORT_URL, events: ['payout'] });
    const before = commands.messages.length;
    const other = await newMerchantSession(running);
    expect((await other.post(`/api/webhooks/${created.body.id}/test`)).status).toBe(404);
    expect((await client.post(`/api/webhooks/${randomUUID()}/test`)).status).toBe(404);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(commands.messages.slice(before).filter((m) => m.body.webhookId === created.body.id)).toEqual([]);
  });

  it('resend: asks the dispatcher to deliver that entry’s delivery again (202)', async () => {
    const created = await client.post('/api/webhooks', {
      name: 'Resend me',
      url: CLOSED_PORT_URL,
      events: ['transaction'],
    });
    const webhook = { id: created.body.id, merchantId: client.merchantId, url: CLOSED_PORT_URL };
    const { deliveryId, logIds } = await seedDelivery(running.db, webhook, [
      { status: 500, createdAt: new Date(tenOClockDaysAgo(4)) },
      { status: 404, createdAt: new Date(tenOClockDaysAgo(4) + 60_000) },
      { status: 404, createdAt: new Date(tenOClockDaysAgo(4) + 16 * 60_000) },
    ]);
    const answer = await client.post(`/api/webhooks/${webhook.id}/logs/${logIds[0]}/resend`);
    expect(answer.status).toBe(202);
    expect(answer.body).toEqual({ deliveryId });
    const command = await commandFor(deliveryId);
    expect(command.body).toEqual({
      v: 1,
      type: 'delivery.resend',
      deliveryId,
      webhookId: webhook.id,
      merchantId: client.merchantId,
      requestedAt: expect.any(String),
    });

    // Every click is a command of its own: the dispatcher numbers them.
    const before = commands.messages.length;
    const answers = await Promise.all(
      Array.from({ length: 3 }, () => client.post(`/api/webhooks/${webhook.id}/logs/${logIds[2]}/resend`)),
    );
    expect(answers.map((a) => [a.status, a.body])).toEqual(Array(3).fill([202, { deliveryId }]));
    await waitFor(() => commandsFor(deliveryId, before).length === 3, { what: 'three resend commands' });
  });

  it('resend: 404 for an unknown log entry, or one of another webhook or merchant', async () => {
    const mine = await client.post('/api/webhooks', { name: 'Mine', url: CLOSED_PORT_URL, events: ['transaction'] });
    const sibling = await client.post('/api/webhooks', {
      name: 'Sibling',
      url: CLOSED_PORT_URL,
      events: ['transaction'],
    });
    const { deliveryId, logIds } = await seedDelivery(
      running.db,
      { id: sibling.body.id, merchantId: client.merchantId, url: CLOSED_PORT_URL },
      [{ status: 500, createdAt: new Date() }],
    );
    expect((await client.post(`/api/webhooks/${mine.body.id}/logs/${randomUUID()}/resend`)).status).toBe(404);
    expect((await client.post(`/api/webhooks/${mine.body.id}/logs/${logIds[0]}/resend`)).status).toBe(404);
    expect((await client.post(`/api/webhooks/${mine.body.id}/logs/not-an-id/resend`)).status).toBe(404);
    const other = await newMerchantSession(running);
    expect((await other.post(`/api/webhooks/${sibling.body.id}/logs/${logIds[0]}/resend`)).status).toBe(404);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(commandsFor(deliveryId)).toEqual([]);
  });

  it('resend: refuses a delivery whose log holds 50 attempts (409), asking nothing', async () => {
    const { webhook, seeded } = await webhookWithFailures('Busy');
    const below = await seeded(49);
    const resent = await client.post(`/api/webhooks/${webhook.id}/logs/${below.logIds[0]}/resend`);
    expect(resent.status).toBe(202);
    expect(resent.body).toEqual({ deliveryId: below.deliveryId });
    await commandFor(below.deliveryId);

    const full = await seeded(50);
    const refused = await client.post(`/api/webhooks/${webhook.id}/logs/${full.logIds[0]}/resend`);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ type: 'urn:problem:resend-limit', detail: expect.stringMatching(/50 times/) });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(commandsFor(full.deliveryId)).toEqual([]);
  });

  it('resend at the retention edge: a delivery still kept goes out; one removed with its day answers 410, asking nothing', async () => {
    const { webhook } = await webhookWithFailures('Retention edge');
    const dayOf = (time: number) => new Date(time).toISOString().slice(0, 10);
    // Kept: made 30 days ago (WEBHOOK_LOG_RETENTION), but its day ended less than the retention and an hour ago.
    const kept = await seedDelivery(running.db, webhook, [{ status: 500, createdAt: new Date(tenOClockDaysAgo(30)) }]);
    // Removed: made 32 days ago and resent 26 days ago; the resend's entry is younger and stays in the log.
    await running.db.query('SELECT delivery.create_day_partitions($1::date, $1::date)', [dayOf(tenOClockDaysAgo(32))]);
    const gone = await seedDelivery(running.db, webhook, [
      { status: 500, createdAt: new Date(tenOClockDaysAgo(32)) },
      { status: 404, createdAt: new Date(tenOClockDaysAgo(26)), attempt: 2, manual: true },
    ]);
    // What the dispatcher's partition maintenance does: every day that ended more than the retention and an hour ago
    // is detached and dropped, the deliveries' and the log's.
    const cutoff = new Date(Date.now() - 30 * 86_400_000 - 3_600_000);
    while ((await running.db.query('SELECT delivery.detach_expired_partition($1) AS name', [cutoff]))[0].name);
    while ((await running.db.query('SELECT delivery.drop_detached_partition() AS name'))[0].name);

    const shown = (await client.get(`/api/webhooks/${webhook.id}/logs?limit=100`)).body.data.map(
      (entry: { id: string }) => entry.id,
    );
    expect(shown).toEqual([gone.logIds[1], kept.logIds[0]]);

    const resent = await client.post(`/api/webhooks/${webhook.id}/logs/${kept.logIds[0]}/resend`);
    expect([resent.status, resent.body]).toEqual([202, { deliveryId: kept.deliveryId }]);
    await commandFor(kept.deliveryId);

    const refused = await client.post(`/api/webhooks/${webhook.id}/logs/${gone.logIds[1]}/resend`);
    expect(refused.status).toBe(410);
    expect(refused.body).toMatchObject({
      type: 'urn:problem:delivery-expired',
      title: 'Delivery no longer kept',
      detail:
        'This event was first sent more than 30 days ago: its delivery is no longer kept, so it cannot be resent.',
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(commandsFor(gone.deliveryId)).toEqual([]);
  });

  it('recover: counts and asks for what failed or was skipped since a time, and nothing else (202 {count})', async () => {
    const created = await client.post('/api/webhooks', {
      name: 'Recovered',
      url: CLOSED_PORT_URL,
      events: ['transaction'],
    });
    const webhook = { id: created.body.id as string, merchantId: client.merchantId, url: CLOSED_PORT_URL };
    const since = tenOClockDaysAgo(2);
    const at = (s: number) => new Date(since + s * 1000);
    // Since `since`: failed (latest 500), skipped (disabled), failed then delivered, delivered, failed twice.
    await seedDelivery(running.db, webhook, [{ status: 500, createdAt: at(10) }]);
    await seedDelivery(running.db, webhook, [{ status: null, outcome: 'skipped', createdAt: at(20) }]);
    await seedDelivery(running.db, webhook, [
      { status: 500, createdAt: at(30) },
      { status: 200, createdAt: at(90) },
    ]);
    await seedDelivery(running.db, webhook, [{ status: 200, createdAt: at(40) }]);
    await seedDelivery(running.db, webhook, [
      { status: 0, createdAt: at(50) },
      { status: 503, createdAt: at(120) },
    ]);
    // Before it: failed, not counted.
    await seedDelivery(running.db, webhook, [{ status: 500, createdAt: at(-60) }]);
    const before = commands.messages.length;
    const answer = await client.post(`/api/webhooks/${webhook.id}/recover`, { since: new Date(since).toISOString() });
    expect([answer.status, answer.body]).toEqual([202, { count: 3 }]);
    const command = await waitFor(
      () => commands.messages.slice(before).find((message) => message.body.type === 'webhook.recover'),
      { what: 'the recover command' },
    );
    expect(command!.body).toEqual({
      v: 1,
      type: 'webhook.recover',
      requestId: expect.any(String),
      webhookId: webhook.id,
      merchantId: client.merchantId,
      since: new Date(since).toISOString(),
      requestedAt: expect.any(String),
    });
    // Nothing to recover since later: 202 {count: 0}, and no command.
    const later = commands.messages.length;
    const none = await client.post(`/api/webhooks/${webhook.id}/recover`, { since: new Date().toISOString() });
    expect([none.status, none.body]).toEqual([202, { count: 0 }]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(commands.messages.slice(later).filter((message) => message.body.type === 'webhook.recover')).toEqual([]);
  });

  it('recover: refuses a disabled webhook (409) and a since that is not a past time within the retention (400)', async () => {
    const created = await client.post('/api/webhooks', {
      name: 'Paused',
      url: CLOSED_PORT_URL,
      events: ['transaction'],
    });
    const id = created.body.id as string;
    const recover = (body: unknown) => client.post(`/api/webhooks/${id}/recover`, body);
    const SINCE_FORMAT = 'must be a date and time with a time zone (ISO 8601, e.g. 2026-11-20T08:00:00Z)';
    for (const [body, message] of [
      [{}, 'is required'],
      [{ since: 'yesterday' }, SINCE_FORMAT],
      // Without a zone the instant would depend on the server's time zone (CONTRACT §3); nor a date that is none.
      [{ since: new Date(Date.now() - 3_600_000).toISOString().slice(0, 19) }, SINCE_FORMAT],
      [{ since: new Date(Date.now() - 86_400_000).toISOString().slice(0, 10) }, SINCE_FORMAT],
      [{ since: '2026-02-30T00:00:00Z' }, SINCE_FORMAT],
      [{ since: new Date(Date.now() + 3_600_000).toISOString() }, 'must not be in the future'],
      [
        { since: new Date(Date.now() - 31 * 86_400_000).toISOString() },
        'must be within the last 30 days: older deliveries are no longer kept',
      ],
    ] as const) {
      const answer = await recover(body);
      expect([answer.status, answer.body.errors]).toEqual([400, [{ field: 'since', message }]]);
    }
    await client.patch(`/api/webhooks/${id}`, { enabled: false });
    const disabled = await recover({ since: new Date(Date.now() - 3_600_000).toISOString() });
    expect([disabled.status, disabled.body.type]).toEqual([409, 'urn:problem:webhook-disabled']);
    expect(
      (await client.post(`/api/webhooks/${randomUUID()}/recover`, { since: new Date().toISOString() })).status,
    ).toBe(404);
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
