import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { EXCHANGES } from '#messaging';
import { waitFor } from '#testing';
import { AmqpTap } from './support/amqp-tap.js';
import { type Client, newMerchantSession, type RunningApp, startApp } from './support/harness.js';
import { seedDelivery, tenOClockDaysAgo } from './support/log-seed.js';

/** A local port the settings accept and nothing listens on. */
const CLOSED_PORT_URL = 'http://127.0.0.1:1024/webhook';

/**
 * webhook-config's side of recover (CONTRACT §5): it checks the request, counts what will be sent, asks the dispatcher
 * by command and reads the progress through the dispatcher's view. Here the test plays the dispatcher: it records the
 * recover a command asks for, the way the dispatcher does (delivery.webhook_recover). What the dispatcher makes of it
 * is tested with the dispatcher (recover.e2e-spec.ts).
 */
describe('recover: start, progress, cancel (e2e over HTTP and RabbitMQ)', () => {
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

  const newWebhook = async (name: string) => {
    const created = await client.post('/api/webhooks', { name, url: CLOSED_PORT_URL, events: ['transaction'] });
    return { id: created.body.id as string, merchantId: client.merchantId, url: CLOSED_PORT_URL };
  };

  /** The next recover command after `after` messages, of `type`. */
  const nextCommand = async (after: number, type: string) =>
    (await waitFor(() => commands.messages.slice(after).find((message) => message.body.type === type), {
      what: `a ${type} command`,
    }))!.body;

  /** What the dispatcher does with a start: records the recover, running. */
  const dispatcherStarts = (
    command: { recoverId: string; webhookId: string; merchantId: string; since: string },
    total: number,
  ) =>
    running.db.query(
      `INSERT INTO delivery.webhook_recover (id, webhook_id, merchant_id, since, state, total, started_at)
       VALUES ($1, $2, $3, $4, 'running', $5, now())`,
      [command.recoverId, command.webhookId, command.merchantId, command.since, total],
    );

  it('counts what failed or was skipped since a time, asks the dispatcher to start it, and answers once it runs (202 {id, count})', async () => {
    const webhook = await newWebhook('Recovered');
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
    const answering = client.post(`/api/webhooks/${webhook.id}/recover`, { since: new Date(since).toISOString() });
    const command = await nextCommand(before, 'webhook.recover');
    expect(command).toEqual({
      v: 1,
      type: 'webhook.recover',
      recoverId: expect.any(String),
      webhookId: webhook.id,
      merchantId: client.merchantId,
      since: new Date(since).toISOString(),
      total: 3,
      requestedAt: expect.any(String),
    });
    await dispatcherStarts(command, 3);
    const answer = await answering;
    expect([answer.status, answer.body]).toEqual([202, { id: command.recoverId, count: 3 }]);

    // Its progress, as the dispatcher keeps it.
    const progress = await client.get(`/api/webhooks/${webhook.id}/recover`);
    expect([progress.status, progress.body]).toEqual([
      200,
      {
        id: command.recoverId,
        state: 'running',
        since: new Date(since).toISOString(),
        total: 3,
        sent: 0,
        startedAt: expect.any(String),
        finishedAt: null,
        cancelReason: null,
      },
    ]);

    // Pressed again while it runs: 409 naming it, and no second command.
    const again = await client.post(`/api/webhooks/${webhook.id}/recover`, { since: new Date(since).toISOString() });
    expect([again.status, again.body.type]).toEqual([409, 'urn:problem:recover-running']);
    expect(again.body.detail).toContain(command.recoverId);
    expect(again.body.detail).toContain('0 of 3 sent');
    expect(commands.messages.filter((message) => message.body.type === 'webhook.recover')).toHaveLength(
      commands.messages.slice(0, before).filter((message) => message.body.type === 'webhook.recover').length + 1,
    );

    // Cancelled: the dispatcher is asked to stop it, and the answer shows it stopped.
    const cancelBefore = commands.messages.length;
    const cancelling = client.delete(`/api/webhooks/${webhook.id}/recover`);
    const cancel = await nextCommand(cancelBefore, 'webhook.recover-cancel');
    expect(cancel).toEqual(expect.objectContaining({ recoverId: command.recoverId, webhookId: webhook.id }));
    await running.db.query(
      `UPDATE delivery.webhook_recover SET state = 'cancelled', cancel_reason = 'requested', finished_at = now() WHERE id = $1`,
      [command.recoverId],
    );
    const cancelled = await cancelling;
    expect([cancelled.status, cancelled.body.state, cancelled.body.cancelReason]).toEqual([
      200,
      'cancelled',
      'requested',
    ]);
    expect(cancelled.body.finishedAt).toEqual(expect.any(String));
    // Cancelling again changes nothing and asks nothing.
    const twice = await client.delete(`/api/webhooks/${webhook.id}/recover`);
    expect([twice.status, twice.body.state]).toEqual([200, 'cancelled']);

    // Nothing to recover since later: 202 {id: null, count: 0}, and no command.
    const later = commands.messages.length;
    const none = await client.post(`/api/webhooks/${webhook.id}/recover`, { since: new Date().toISOString() });
    expect([none.status, none.body]).toEqual([202, { id: null, count: 0 }]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(commands.messages.slice(later)).toEqual([]);
  });

  it('takes one request of a webhook at a time: of two at once, one starts it and the other is told it runs', async () => {
    const webhook = await newWebhook('Twice at once');
    const since = tenOClockDaysAgo(1);
    await seedDelivery(running.db, webhook, [{ status: 500, createdAt: new Date(since + 1_000) }]);
    const before = commands.messages.length;
    const body = { since: new Date(since).toISOString() };
    const answers = Promise.all([1, 2].map(() => client.post(`/api/webhooks/${webhook.id}/recover`, body)));
    await dispatcherStarts(await nextCommand(before, 'webhook.recover'), 1);
    const statuses = (await answers).map((answer) => answer.status).sort();
    expect(statuses).toEqual([202, 409]);
    expect(commands.messages.slice(before).filter((message) => message.body.type === 'webhook.recover')).toHaveLength(
      1,
    );
  });

  it('answers 404 for a webhook never recovered, and for another merchant’s webhook', async () => {
    const webhook = await newWebhook('Never');
    expect((await client.get(`/api/webhooks/${webhook.id}/recover`)).status).toBe(404);
    expect((await client.delete(`/api/webhooks/${webhook.id}/recover`)).status).toBe(404);
    const other = await newMerchantSession(running);
    expect((await other.get(`/api/webhooks/${webhook.id}/recover`)).status).toBe(404);
    expect((await other.post(`/api/webhooks/${webhook.id}/recover`, { since: new Date().toISOString() })).status).toBe(
      404,
    );
  });

  it('refuses a disabled webhook (409) and a since that is not a past time within the retention (400)', async () => {
    const { id } = await newWebhook('Paused');
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

  it('requires the CSRF token to start or cancel one', async () => {
    const { id } = await newWebhook('CSRF');
    const body = { since: new Date(Date.now() - 60_000).toISOString() };
    expect((await client.request('POST', `/api/webhooks/${id}/recover`, body, { csrf: false })).status).toBe(403);
    expect((await client.request('DELETE', `/api/webhooks/${id}/recover`, undefined, { csrf: false })).status).toBe(
      403,
    );
  });
});
