import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { AmqpClient } from '#messaging';
import { waitFor } from '#testing';
import { startAppProcess, stopAppProcess, type AppProcess } from './app-process.js';
import {
  Receiver,
  closeDb,
  createMerchant,
  db,
  dispatcherEnv,
  publishEvents,
  servesWebhook,
  testAmqp,
  transactionEvent,
} from './dispatcher.harness.js';

const PLATFORM = { authorization: 'Bearer development-platform-token' };

async function call(
  baseUrl: string,
  method: string,
  path: string,
  body: unknown,
  headers: Record<string, string>,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed JSON, looked into freely
): Promise<{ status: number; body: any; headers: Headers }> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
}

/** Every occurrence of `needle` in any column of any table of the apps' schemas (text as text, bytea as bytes). */
async function whereStored(needle: string): Promise<string[]> {
  const { rows: columns } = await db().query<{ schema: string; table: string; column: string; type: string }>(
    `SELECT c.table_schema AS schema, c.table_name AS table, c.column_name AS column, c.data_type AS type
       FROM information_schema.columns c
       JOIN information_schema.tables t USING (table_schema, table_name)
      WHERE c.table_schema IN ('payments', 'backend', 'delivery', 'public') AND t.table_type = 'BASE TABLE'
        AND c.data_type IN ('text', 'character varying', 'json', 'jsonb', 'bytea', 'ARRAY')`,
  );
  const found: string[] = [];
  for (const { schema, table, column, type } of columns) {
    const test =
      type === 'bytea' ? `position(convert_to($1, 'UTF8') IN "${column}") > 0` : `strpos("${column}"::text, $1) > 0`;
    const { rows } = await db().query(`SELECT 1 FROM "${schema}"."${table}" WHERE ${test} LIMIT 1`, [needle]);
    if (rows.length > 0) found.push(`${schema}.${table}.${column}`);
  }
  return found;
}

/**
 * Custom headers end to end (CONTRACT §5, issue #34), with webhook-config and a dispatcher as OS processes: set in the
 * backend API, stored encrypted, read by the dispatcher and sent with every attempt (an event's, a Send test's, after a
 * change the new value) to a real receiver, with the delivery's own headers untouched; the clear value is nowhere in
 * the database (any text, JSON or bytea column of either app) and in neither app's log.
 */
describe('custom headers (e2e, webhook-config and dispatcher processes)', () => {
  let receiver: Receiver;
  let amqp: AmqpClient;
  let config: AppProcess;
  let dispatcher: AppProcess;
  let merchantId: string;
  let backend: Record<string, string>;
  const token = `Bearer clear-${randomUUID()}-tail`;
  const replaced = `second-${randomUUID()}-WXYZ`;

  beforeAll(async () => {
    receiver = await new Receiver().start();
    amqp = testAmqp('test-custom-headers');
    await amqp.waitForConnect();
    ({ merchantId } = await createMerchant());
    // Debug lines on: the values must stay out of the most talkative log too.
    const env = dispatcherEnv({ LOG_LEVEL: 'debug', LOG_FORMAT: 'json', WEBHOOK_CONFIG_PORT: '0' });
    [config, dispatcher] = await Promise.all([
      startAppProcess('webhook-config', env),
      startAppProcess('webhook-dispatcher', env),
    ]);
    const email = `headers-${randomUUID()}@example.com`;
    const password = 'correct horse battery staple';
    const user = await call(
      config.baseUrl,
      'POST',
      `/internal/merchants/${merchantId}/users`,
      { email, password },
      PLATFORM,
    );
    expect(user.status).toBe(201);
    const session = await call(config.baseUrl, 'POST', '/api/session', { email, password }, {});
    const cookie = session.headers
      .getSetCookie()
      .find((value) => value.startsWith('wc_session='))!
      .split(';')[0];
    backend = { cookie, 'x-csrf-token': session.body.csrfToken };
  }, 120_000);

  afterAll(async () => {
    await stopAppProcess(dispatcher);
    await stopAppProcess(config);
    await amqp?.close();
    await receiver?.stop();
    await closeDb();
  }, 60_000);

  it('sends them with every attempt, ours untouched, and stores or logs the value nowhere', async () => {
    const url = `${receiver.url}/custom-headers`;
    servesWebhook(url, { version: '2026-08-20', contentType: 'json' });
    const created = await call(
      config.baseUrl,
      'POST',
      '/api/webhooks',
      {
        name: 'With headers',
        url,
        events: ['transaction'],
        version: '2026-08-20',
        headers: [
          { name: 'Authorization', value: token },
          { name: 'X-Shop-Id', value: 'shop 42' },
        ],
      },
      backend,
    );
    expect(created.status).toBe(201);
    expect(created.body.headers).toEqual([
      { name: 'Authorization', valueLast4: 'tail' },
      { name: 'X-Shop-Id', valueLast4: 'p 42' },
    ]);
    const webhookId = created.body.id as string;
    const secret = created.body.secret as string;
    const got = await call(config.baseUrl, 'GET', `/api/webhooks/${webhookId}`, undefined, backend);
    expect(got.body.headers).toEqual(created.body.headers);
    expect(JSON.stringify(got.body)).not.toContain(token);

    // A reserved name is refused, naming it, and changes nothing.
    const refused = await call(
      config.baseUrl,
      'PATCH',
      `/api/webhooks/${webhookId}`,
      { headers: [{ name: 'Webhook-Signature', value: 'forged' }] },
      backend,
    );
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].field).toBe('headers.0.name');
    expect(refused.body.errors[0].message).toContain('"Webhook-Signature"');

    // An event's delivery.
    await publishEvents(amqp, [transactionEvent(merchantId, null)]);
    const first = (await waitFor(() => receiver.to('/custom-headers')[0], {
      what: 'the delivery',
      timeoutMs: 30_000,
    }))!;
    expect(first.headers['authorization']).toBe(token);
    expect(first.headers['x-shop-id']).toBe('shop 42');
    expect(first.headers['content-type']).toBe('application/json');
    expect(first.headers['user-agent']).toBe('payments-webhooks/1.0');
    expect(first.headers['webhook-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(() => new Webhook(secret).verify(first.body, first.headers as Record<string, string>)).not.toThrow();

    // The Send test carries them too.
    const test = await call(config.baseUrl, 'POST', `/api/webhooks/${webhookId}/test`, undefined, backend);
    expect(test.status).toBe(202);
    const tested = (await waitFor(
      () => receiver.to('/custom-headers').find((r) => r.headers['webhook-id'] === test.body.deliveryId),
      { what: 'the test delivery', timeoutMs: 30_000 },
    ))!;
    expect(tested.headers['authorization']).toBe(token);

    // Replace one value, keep the other without knowing it: the next attempt sends the new one.
    const patched = await call(
      config.baseUrl,
      'PATCH',
      `/api/webhooks/${webhookId}`,
      { headers: [{ name: 'Authorization', value: replaced }, { name: 'x-shop-id' }] },
      backend,
    );
    expect(patched.status).toBe(200);
    expect(patched.body.headers).toEqual([
      { name: 'Authorization', valueLast4: 'WXYZ' },
      { name: 'x-shop-id', valueLast4: 'p 42' },
    ]);
    const before = receiver.to('/custom-headers').length;
    await waitFor(
      async () => {
        await publishEvents(amqp, [transactionEvent(merchantId, null)]);
        await new Promise((resolve) => setTimeout(resolve, 300));
        return receiver
          .to('/custom-headers')
          .slice(before)
          .some((r) => r.headers['authorization'] === replaced);
      },
      { what: 'a delivery with the new value', timeoutMs: 30_000 },
    );
    const latest = receiver.to('/custom-headers').at(-1)!;
    expect(latest.headers['x-shop-id']).toBe('shop 42');

    // Nowhere in the database, nowhere in either log (the webhook log included: it is in the database).
    for (const value of [token, replaced]) {
      expect(await whereStored(value)).toEqual([]);
      expect(await whereStored(value.slice(0, -4))).toEqual([]);
      expect(config.output()).not.toContain(value.slice(0, -4));
      expect(dispatcher.output()).not.toContain(value.slice(0, -4));
    }
    // The check finds what is there: the header's name is stored in clear.
    expect(await whereStored('x-shop-id')).toContain('backend.webhook_header.name');
  }, 120_000);
});
