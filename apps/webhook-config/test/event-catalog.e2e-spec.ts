import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { randomUUID } from 'node:crypto';
import {
  EVENT_KINDS,
  PLATFORM_EVENT_TYPES,
  WEBHOOK_CONTENT_TYPES,
  WEBHOOK_MIME_TYPES,
  WEBHOOK_VERSIONS,
} from '#domain';
import { EXCHANGES } from '#messaging';
import { waitFor, webhookBodyProblems } from '#testing';
import { webhooksDoc } from '../../transaction-api/src/common/webhooks.doc.js';
import { AmqpTap } from './support/amqp-tap.js';
import { call, type Client, type Json, newMerchantSession, type RunningApp, startApp } from './support/harness.js';

/** A local port the settings accept and nothing listens on (see webhook-deliveries.e2e-spec.ts). */
const CLOSED_PORT_URL = 'http://127.0.0.1:1024/webhook';

/**
 * The event catalog, `GET /api/event-types` (issue #34), over HTTP: every kind and payload version, each schema the
 * one transaction-api's OpenAPI `webhooks` publish, each example valid against it in both content types; and its
 * "Send this example", the test delivery of a chosen kind (`POST /api/webhooks/{id}/test {eventType}`).
 */
describe('event catalog (e2e over HTTP and RabbitMQ)', () => {
  let running: RunningApp;
  let client: Client;
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

  it('needs a session: 401 problem without one', async () => {
    const answer = await call(running.baseUrl, 'GET', '/api/event-types');
    expect(answer.status).toBe(401);
    expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });

  it('lists every kind with its event types, and every payload version of each', async () => {
    const answer = await client.get('/api/event-types');
    expect(answer.status).toBe(200);
    const kinds: Json[] = answer.body.data;
    expect(kinds.map((kind) => kind.kind)).toEqual([...EVENT_KINDS]);
    expect(kinds.flatMap((kind) => kind.types)).toEqual([...PLATFORM_EVENT_TYPES]);
    for (const kind of kinds) {
      expect([kind.kind, typeof kind.label, typeof kind.hint]).toEqual([kind.kind, 'string', 'string']);
      expect([kind.kind, kind.versions.map((version: Json) => version.version)]).toEqual([
        kind.kind,
        [...WEBHOOK_VERSIONS],
      ]);
    }
  });

  it('gives each version the schema and example of the OpenAPI `webhooks`, the example valid against its schema', async () => {
    const published = webhooksDoc();
    const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
    addFormats.default(ajv);
    const kinds: Json[] = (await client.get('/api/event-types')).body.data;
    let checked = 0;
    for (const kind of kinds) {
      for (const version of kind.versions) {
        const name = `${kind.kind}-${version.version}`;
        const content = (published[name]?.post as Json).requestBody.content;
        const json = content[WEBHOOK_MIME_TYPES.json];
        const form = content[WEBHOOK_MIME_TYPES['php-post']];
        expect([name, version.schema]).toEqual([name, json.schema]);
        expect([name, version.example]).toEqual([name, json.example]);
        const validate = ajv.compile(version.schema);
        expect([name, validate(version.example) || validate.errors]).toEqual([name, true]);

        expect(version.encodings.map((encoding: Json) => encoding.contentType)).toEqual([...WEBHOOK_CONTENT_TYPES]);
        for (const encoding of version.encodings) {
          const at = `${name} ${encoding.contentType}`;
          expect([at, encoding.mediaType]).toEqual([at, WEBHOOK_MIME_TYPES[encoding.contentType as 'json']]);
          // The body as sent, read back as JSON or by PHP's parse_str, valid against the published schema.
          expect([
            at,
            await webhookBodyProblems(
              { body: encoding.body },
              { version: version.version, contentType: encoding.contentType },
            ),
          ]).toEqual([at, []]);
        }
        const [jsonBody, formBody] = version.encodings;
        expect(JSON.parse(jsonBody.body)).toEqual(version.example);
        expect([name, jsonBody.schema]).toEqual([name, json.schema]);
        expect([name, formBody.body]).toEqual([name, form.example]);
        expect([name, formBody.schema]).toEqual([name, form.schema.contentSchema]);
        checked++;
      }
    }
    // Every entry of the OpenAPI `webhooks` is in the catalog.
    expect(checked).toBe(Object.keys(published).length);
  });

  const commandsFor = (webhookId: string, after = 0) =>
    commands.messages.slice(after).filter((m) => m.body.webhookId === webhookId);

  it('Send this example: a test delivery of the chosen kind, which the webhook must receive (400 otherwise)', async () => {
    const created = await client.post('/api/webhooks', {
      name: 'Payouts and payments',
      url: CLOSED_PORT_URL,
      events: ['payout', 'transaction'],
    });
    const webhookId: string = created.body.id;
    const sent = await client.post(`/api/webhooks/${webhookId}/test`, { eventType: 'payout' });
    expect(sent.status).toBe(202);
    const { deliveryId } = sent.body;
    const command = await waitFor(() => commandsFor(webhookId).find((m) => m.body.deliveryId === deliveryId), {
      what: 'the test command',
    });
    expect(command!.body).toEqual({
      v: 1,
      type: 'webhook.test',
      deliveryId,
      webhookId,
      merchantId: client.merchantId,
      requestedAt: expect.any(String),
      eventType: 'payout',
    });

    const before = commands.messages.length;
    const notSelected = await client.post(`/api/webhooks/${webhookId}/test`, { eventType: 'subscription' });
    expect(notSelected.status).toBe(400);
    expect(notSelected.body).toMatchObject({
      status: 400,
      errors: [{ field: 'eventType', message: expect.stringMatching(/does not receive subscription events/) }],
    });
    const unknown = await client.post(`/api/webhooks/${webhookId}/test`, { eventType: 'refund' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors).toEqual([{ field: 'eventType', message: expect.stringMatching(/must be one of/) }]);
    const extra = await client.post(`/api/webhooks/${webhookId}/test`, { eventType: 'payout', version: '1.0' });
    expect(extra.status).toBe(400);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(commandsFor(webhookId, before)).toEqual([]);
  });

  it('Send this example: 404 for another merchant’s webhook or an unknown one, asking nothing', async () => {
    const created = await client.post('/api/webhooks', { name: 'Mine', url: CLOSED_PORT_URL, events: ['payout'] });
    const before = commands.messages.length;
    const other = await newMerchantSession(running);
    const foreign = await other.post(`/api/webhooks/${created.body.id}/test`, { eventType: 'payout' });
    expect([foreign.status, foreign.headers.get('content-type')]).toEqual([
      404,
      'application/problem+json; charset=utf-8',
    ]);
    expect((await client.post(`/api/webhooks/${randomUUID()}/test`, { eventType: 'payout' })).status).toBe(404);
    // Refused without a CSRF token, like every mutating request.
    expect(
      (await client.request('POST', `/api/webhooks/${created.body.id}/test`, { eventType: 'payout' }, { csrf: false }))
        .status,
    ).toBe(403);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(commandsFor(created.body.id, before)).toEqual([]);
  });
});
