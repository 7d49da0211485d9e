import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { EXCHANGES } from '#messaging';
import { SecretCipher } from '#platform';
import { waitFor } from '#testing';
import { DEV_SECRET_ENCRYPTION_KEY, loadWebhookConfigConfig } from '../src/config/webhook-config.config.js';
import { AmqpTap } from './support/amqp-tap.js';
import { type Client, newMerchantSession, PUBLIC_URL, type RunningApp, startApp } from './support/harness.js';
import { EVENT_KINDS } from '#domain';

/** The kinds of event as the problems list them. */
const KINDS = EVENT_KINDS.join(', ');

const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;

describe('webhook settings (e2e over HTTP, WEBHOOK_ALLOW_PRIVATE_TARGETS=false)', () => {
  let running: RunningApp;
  let client: Client & { integrationIds: string[] };
  let configTap: AmqpTap;
  const output: string[] = [];
  const originalWrite = {
    out: process.stdout.write.bind(process.stdout),
    err: process.stderr.write.bind(process.stderr),
  };

  beforeAll(async () => {
    // Capture everything the app logs (debug level), to prove secrets never reach the log.
    process.stdout.write = ((chunk: string | Uint8Array, ...rest: never[]) => (
      output.push(String(chunk)),
      originalWrite.out(chunk, ...rest)
    )) as typeof process.stdout.write;
    process.stderr.write = ((chunk: string | Uint8Array, ...rest: never[]) => (
      output.push(String(chunk)),
      originalWrite.err(chunk, ...rest)
    )) as typeof process.stderr.write;
    running = await startApp({ LOG_LEVEL: 'debug' });
    client = await newMerchantSession(running, ['Online shop', 'Shop in Bern']);
    configTap = await AmqpTap.bind(EXCHANGES.config);
  });
  afterAll(async () => {
    process.stdout.write = originalWrite.out;
    process.stderr.write = originalWrite.err;
    await configTap.close();
    await running.close();
  });

  const changeMessageFor = async (webhookId: string, after = 0) =>
    (await waitFor(() => configTap.messages.slice(after).find((message) => message.body.webhookId === webhookId), {
      what: `webhooks.config message for ${webhookId}`,
    }))!;

  const create = (overrides: Record<string, unknown> = {}, as: Client = client) =>
    as.post('/api/webhooks', { name: 'Shop orders', url: PUBLIC_URL, events: ['transaction'], ...overrides });

  describe('create, read, update, delete', () => {
    it('creates with every setting: 201 with the secret, the URL exactly as given', async () => {
      const url = 'HTTPS://93.184.215.14:8443/Webhooks/Payments?shop=1&x=%20';
      const answer = await create({
        name: '  Orders to ERP  ',
        url,
        contentType: 'php-post',
        version: '2025-01-15',
        retryOnError: false,
        events: ['payout', 'transaction', 'payout'],
        integrationId: client.integrationIds[1],
        enabled: false,
        maxPerSecond: 5,
        skipSupersededRepeats: false,
      });
      expect(answer.status).toBe(201);
      expect(answer.body).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        name: 'Orders to ERP',
        url,
        contentType: 'php-post',
        version: '2025-01-15',
        retryOnError: false,
        events: ['transaction', 'payout'],
        integrationId: client.integrationIds[1],
        enabled: false,
        maxPerSecond: 5,
        skipSupersededRepeats: false,
        headers: [],
        health: {
          state: 'disabled',
          lastSuccessAt: null,
          failingSince: null,
          attempts24h: 0,
          failures24h: 0,
          disabledReason: 'manual',
        },
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
        secret: expect.stringMatching(SECRET),
      });
      expect((await client.get(`/api/webhooks/${answer.body.id}`)).body.url).toBe(url);
    });

    it('defaults to JSON, the newest version, retry on error and all events of every integration', async () => {
      const answer = await create();
      expect(answer.body).toMatchObject({
        contentType: 'json',
        version: '2026-08-20',
        retryOnError: true,
        integrationId: null,
        enabled: true,
        maxPerSecond: null,
        skipSupersededRepeats: true,
        health: { state: 'healthy', disabledReason: null, attempts24h: 0, failures24h: 0 },
      });
    });

    it('disables (manual) and enables again; a webhook the platform disabled keeps its reason until enabled', async () => {
      const { id } = (await create({ name: 'Toggled' })).body;
      const off = await client.patch(`/api/webhooks/${id}`, { enabled: false });
      expect(off.body).toMatchObject({ enabled: false, health: { state: 'disabled', disabledReason: 'manual' } });
      const on = await client.patch(`/api/webhooks/${id}`, { enabled: true });
      expect(on.body).toMatchObject({ enabled: true, health: { state: 'healthy', disabledReason: null } });
      // As webhook-config does itself when the dispatcher reports the webhook failing for WEBHOOK_DISABLE_AFTER.
      await running.db.query(`UPDATE webhook SET enabled = false, disabled_reason = 'failing' WHERE id = $1`, [id]);
      const still = await client.patch(`/api/webhooks/${id}`, { enabled: false, maxPerSecond: 20 });
      expect(still.body).toMatchObject({ enabled: false, maxPerSecond: 20, health: { disabledReason: 'failing' } });
      const enabled = await client.patch(`/api/webhooks/${id}`, { enabled: true, maxPerSecond: null });
      expect(enabled.body).toMatchObject({ enabled: true, maxPerSecond: null, health: { disabledReason: null } });
    });

    it('PATCH {enabled} publishes the operational events webhook.disabled (manual) and webhook.enabled on payments.events', async () => {
      const events = await AmqpTap.bind(EXCHANGES.events, 'webhook.*');
      try {
        const { id } = (await create({ name: 'Announced' })).body;
        await client.patch(`/api/webhooks/${id}`, { enabled: false });
        await client.patch(`/api/webhooks/${id}`, { enabled: false, name: 'Announced' }); // no change: no event
        await client.patch(`/api/webhooks/${id}`, { enabled: true });
        const about = () => events.messages.filter((message) => message.body.subjectId === id);
        await waitFor(() => about().length >= 2, { what: 'two operational events' });
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(about().map((message) => [message.body.type, message.body.data.disabledReason])).toEqual([
          ['webhook.disabled', 'manual'],
          ['webhook.enabled', null],
        ]);
        expect(about()[0]!.body).toMatchObject({
          v: 1,
          category: 'webhook',
          integrationId: null,
          data: { id, name: 'Announced', state: 'disabled', count: null },
        });
      } finally {
        await events.close();
      }
    });

    it('shows the health the dispatcher keeps: failing since its first failure after the last success, 24 h counts', async () => {
      const list = [(await create({ name: 'Failing' })).body.id, (await create({ name: 'Healthy' })).body.id];
      const [failing, healthy] = list;
      const hour = (back: number) => new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000 - back * 3_600_000);
      // As the dispatcher writes them with each batch of log entries.
      await running.db.query(
        `INSERT INTO webhook_health (webhook_id, last_attempt_at, last_success_at, failing_since, failures_in_a_row)
         VALUES ($1, now(), $3, $4, 7), ($2, now(), now(), NULL, 0)`,
        [failing, healthy, hour(5), hour(4)],
      );
      await running.db.query(
        `INSERT INTO webhook_health_hour (webhook_id, hour, attempts, failures)
         VALUES ($1, $3, 4, 4), ($1, $4, 3, 3), ($1, $5, 50, 1), ($2, $3, 10, 0)`,
        [failing, healthy, hour(0), hour(4), hour(30)],
      );
      const webhooks = (await client.get('/api/webhooks')).body.data as Array<{ id: string; health: unknown }>;
      const health = new Map(webhooks.map((webhook) => [webhook.id, webhook.health]));
      // The hour of 30 hours ago is past the 24 hours.
      expect(health.get(failing)).toEqual({
        state: 'failing',
        lastSuccessAt: hour(5).toISOString(),
        failingSince: hour(4).toISOString(),
        attempts24h: 7,
        failures24h: 7,
        disabledReason: null,
      });
      expect(health.get(healthy)).toMatchObject({ state: 'healthy', failingSince: null, attempts24h: 10 });
      expect((await client.get(`/api/webhooks/${failing}`)).body.health).toEqual(health.get(failing));
    });

    it('lists the merchant’s webhooks newest first, never with a secret', async () => {
      const created = await create({ name: 'Listed' });
      const list = await client.get('/api/webhooks');
      expect(list.status).toBe(200);
      expect(list.body.data[0]).toMatchObject({ id: created.body.id, name: 'Listed' });
      expect(list.text).not.toContain('whsec_');
      expect(list.text).not.toContain(created.body.secret);
      for (const webhook of list.body.data) expect(Object.keys(webhook)).not.toContain('secret');
      const one = await client.get(`/api/webhooks/${created.body.id}`);
      expect(one.text).not.toContain('whsec_');
    });

    it('updates only the fields sent; integrationId null links to all events', async () => {
      const created = await create({ integrationId: client.integrationIds[0] });
      const answer = await client.patch(`/api/webhooks/${created.body.id}`, {
        name: 'Renamed',
        retryOnError: false,
        integrationId: null,
      });
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({
        name: 'Renamed',
        retryOnError: false,
        integrationId: null,
        url: PUBLIC_URL,
        events: ['transaction'],
      });
      expect(new Date(answer.body.updatedAt).getTime()).toBeGreaterThanOrEqual(
        new Date(created.body.updatedAt).getTime(),
      );
      const again = await client.patch(`/api/webhooks/${created.body.id}`, {
        events: ['subscription'],
        version: '2025-01-15',
        contentType: 'php-post',
      });
      expect(again.body).toMatchObject({
        name: 'Renamed',
        events: ['subscription'],
        version: '2025-01-15',
        contentType: 'php-post',
      });
    });

    it("accepts ports 80, 443 and 1024–65535 (or none: the scheme's), storing the URL exactly as given", async () => {
      for (const url of [
        'http://93.184.215.14:80/hook',
        'https://93.184.215.14:443/hook',
        'http://93.184.215.14:1024/hook',
        'http://93.184.215.14:8080/hook',
        'https://93.184.215.14:65535/hook',
        'http://93.184.215.14/hook',
      ]) {
        const created = await create({ url });
        expect([url, created.status, created.body.url]).toEqual([url, 201, url]);
        const updated = await client.patch(`/api/webhooks/${created.body.id}`, { url: url.replace('hook', 'other') });
        expect([url, updated.status]).toEqual([url, 200]);
      }
    });

    it('deletes: 204, then 404', async () => {
      const created = await create();
      expect((await client.delete(`/api/webhooks/${created.body.id}`)).status).toBe(204);
      expect((await client.get(`/api/webhooks/${created.body.id}`)).status).toBe(404);
      expect((await client.delete(`/api/webhooks/${created.body.id}`)).status).toBe(404);
      const [{ count }] = await running.db.query(
        `SELECT count(*)::int AS count FROM webhook_secret WHERE webhook_id = $1`,
        [created.body.id],
      );
      expect(count).toBe(0);
    });

    it('lists the merchant’s integrations (id and name, never key material)', async () => {
      const answer = await client.get('/api/integrations');
      expect(answer.status).toBe(200);
      expect(answer.body.data.map((i: { name: string }) => i.name)).toEqual(['Online shop', 'Shop in Bern']);
      expect(Object.keys(answer.body.data[0]).sort()).toEqual(['createdAt', 'id', 'name']);
    });
  });

  describe('validation: 400 problem+json naming each field, nothing stored', () => {
    const expectFieldError = async (body: Record<string, unknown>, field: string, message: string | RegExp) => {
      const before = (await client.get('/api/webhooks')).body.data.length;
      const answer = await client.post('/api/webhooks', body);
      expect(answer.status).toBe(400);
      expect(answer.headers.get('content-type')).toContain('application/problem+json');
      expect(answer.body).toMatchObject({ type: 'urn:problem:validation', status: 400 });
      // Exactly one message, and a true one: a missing or mistyped field gets no length or range messages.
      expect(answer.body.errors).toEqual([
        { field, message: typeof message === 'string' ? message : expect.stringMatching(message) },
      ]);
      expect((await client.get('/api/webhooks')).body.data.length).toBe(before);
    };
    const valid = { name: 'Valid', url: PUBLIC_URL, events: ['transaction'] };
    const USER_INFO =
      'must not contain a user name or password (no "@" before the host name); verify the webhook signature instead';
    const portProblem = (port: number) => `must use port 80, 443 or a port from 1024 to 65535, not ${port}`;

    it.each([
      ['name', { ...valid, name: '' }, 'must be between 1 and 200 characters long'],
      ['name', { ...valid, name: 'x'.repeat(201) }, 'must be between 1 and 200 characters long'],
      // Two characters each to PostgreSQL (one to class-validator's Length), and a character it cannot store.
      ['name', { ...valid, name: 'a\uFE0F'.repeat(101) }, 'must be between 1 and 200 characters long'],
      ['name', { ...valid, name: 'a\u0000b' }, 'must not contain NUL characters'],
      ['url', { ...valid, url: 'shop.example/hook' }, 'must be an absolute URL starting with https:// or http://'],
      ['url', { ...valid, url: 'ftp://93.184.215.14/hook' }, 'must start with https:// or http://'],
      ['url', { ...valid, url: 'https://user:secret@93.184.215.14/hook' }, USER_INFO],
      // Empty user info too, which the URL parser would silently drop.
      ['url', { ...valid, url: 'http://:@93.184.215.14/hook' }, USER_INFO],
      ['url', { ...valid, url: 'http://@93.184.215.14/hook' }, USER_INFO],
      ['url', { ...valid, url: 'http://user@93.184.215.14/hook' }, USER_INFO],
      ['url', { ...valid, url: 'http://93.184.215.14:22/hook' }, portProblem(22)],
      ['url', { ...valid, url: 'http://93.184.215.14:25/hook' }, portProblem(25)],
      ['url', { ...valid, url: 'https://93.184.215.14:0/hook' }, portProblem(0)],
      ['url', { ...valid, url: 'https://93.184.215.14:1023/hook' }, portProblem(1023)],
      ['url', { ...valid, url: 'https://93.184.215.14:65536/hook' }, portProblem(65536)],
      [
        'url',
        { ...valid, url: 'http://127.0.0.1:8080/hook' },
        /must point to a public internet address; 127\.0\.0\.1 is a private/,
      ],
      ['url', { ...valid, url: 'http://169.254.169.254/latest/meta-data' }, /must point to a public internet address/],
      ['url', { ...valid, url: 'http://[::1]/hook' }, /must point to a public internet address/],
      ['url', { ...valid, url: 'http://10.0.0.8/hook' }, /must point to a public internet address/],
      [
        'url',
        { ...valid, url: 'http://localhost/hook' },
        /must point to a public internet address; localhost is a private, loopback or link-local address \(127\.0\.0\.1/,
      ],
      ['url', { name: 'x', events: ['transaction'] }, 'is required'],
      ['name', { url: PUBLIC_URL, events: ['transaction'] }, 'is required'],
      ['events', { name: 'x', url: PUBLIC_URL }, 'is required'],
      ['events', { ...valid, events: [] }, `must contain at least one of ${KINDS}`],
      ['events', { ...valid, events: ['refund'] }, `may only contain ${KINDS}`],
      ['events', { ...valid, events: 'transaction' }, `must be a list of ${KINDS}`],
      ['version', { ...valid, version: '2024-01-01' }, 'must be one of 2025-01-15, 2026-08-20'],
      ['version', { ...valid, version: null }, 'must be one of 2025-01-15, 2026-08-20'],
      ['contentType', { ...valid, contentType: 'xml' }, 'must be one of json, php-post'],
      ['retryOnError', { ...valid, retryOnError: 'yes' }, 'must be true or false'],
      ['enabled', { ...valid, enabled: 'no' }, 'must be true or false'],
      ['enabled', { ...valid, enabled: null }, 'must be true or false'],
      ['skipSupersededRepeats', { ...valid, skipSupersededRepeats: 1 }, 'must be true or false'],
      ...[0, 1001, 2.5, '5', -1].map(
        (maxPerSecond) =>
          [
            'maxPerSecond',
            { ...valid, maxPerSecond },
            'must be a whole number from 1 to 1000, or null for no limit',
          ] as const,
      ),
      [
        'integrationId',
        { ...valid, integrationId: 'shop' },
        'must be the id of one of your integrations, or null for all events',
      ],
      ['integrationId', { ...valid, integrationId: randomUUID() }, 'is not one of your integrations'],
      ['secret', { ...valid, secret: 'whsec_mine' }, 'property secret should not exist'],
    ])('%s: %j', async (field, body, message) => {
      await expectFieldError(body, field, message);
    });

    it('says only that a missing field is required', async () => {
      const answer = await client.post('/api/webhooks', {});
      expect([answer.status, answer.body.errors]).toEqual([
        400,
        [
          { field: 'name', message: 'is required' },
          { field: 'url', message: 'is required' },
          { field: 'events', message: 'is required' },
        ],
      ]);
      const events = await client.post('/api/webhooks', {
        ...valid,
        // More than twice the kinds: too many, whatever they are.
        events: [...EVENT_KINDS, ...EVENT_KINDS, 'x'],
      });
      expect(events.body.errors).toEqual([
        { field: 'events', message: 'has too many entries' },
        { field: 'events', message: `may only contain ${KINDS}` },
      ]);
    });

    it('reports several fields at once', async () => {
      const answer = await client.post('/api/webhooks', { name: '', url: 'nope', events: [] });
      expect(answer.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['events', 'name', 'url']);
    });

    it('refuses a webhook linked to an integration that selects only payouts (it could never fire), on create and update', async () => {
      const linkedPayouts = await create({ events: ['payout'], integrationId: client.integrationIds[0] });
      expect(linkedPayouts.status).toBe(400);
      expect(linkedPayouts.body.errors).toEqual([
        { field: 'events', message: expect.stringMatching(/only payouts, which belong to no integration/) },
      ]);
      // Allowed: payouts of all events, or payouts beside another type on a linked webhook.
      const payouts = await create({ events: ['payout'] });
      expect(payouts.status).toBe(201);
      expect(
        (await create({ events: ['payout', 'transaction'], integrationId: client.integrationIds[0] })).status,
      ).toBe(201);
      // Linking the payouts-only webhook afterwards is refused the same way, and changes nothing.
      const linking = await client.patch(`/api/webhooks/${payouts.body.id}`, {
        integrationId: client.integrationIds[0],
      });
      expect(linking.status).toBe(400);
      expect(linking.body.errors.map((e: { field: string }) => e.field)).toEqual(['events']);
      expect((await client.get(`/api/webhooks/${payouts.body.id}`)).body.integrationId).toBeNull();
    });

    it('validates an update the same way and leaves the webhook unchanged', async () => {
      const created = await create();
      for (const [url, message] of [
        ['http://@93.184.215.14/hook', USER_INFO],
        ['https://:@93.184.215.14/hook', USER_INFO],
        ['http://93.184.215.14:5/hook', portProblem(5)],
        ['https://93.184.215.14:1023/hook', portProblem(1023)],
      ]) {
        const refused = await client.patch(`/api/webhooks/${created.body.id}`, { url });
        expect([url, refused.status, refused.body.errors]).toEqual([url, 400, [{ field: 'url', message }]]);
      }
      // The value rules first (every field at once) ...
      const values = await client.patch(`/api/webhooks/${created.body.id}`, { url: 'ftp://x', name: null, events: [] });
      expect(values.status).toBe(400);
      expect([...new Set(values.body.errors.map((e: { field: string }) => e.field))].sort()).toEqual([
        'events',
        'name',
        'url',
      ]);
      // ... then the checks that need a lookup: where the URL points, whose integration it is.
      const lookups = await client.patch(`/api/webhooks/${created.body.id}`, {
        url: 'http://192.168.0.10/hook',
        integrationId: randomUUID(),
      });
      expect(lookups.status).toBe(400);
      expect(lookups.body.errors.map((e: { field: string }) => e.field)).toEqual(['url', 'integrationId']);
      expect((await client.get(`/api/webhooks/${created.body.id}`)).body).toMatchObject({
        url: PUBLIC_URL,
        name: 'Shop orders',
        integrationId: null,
      });
    });

    it('rejects a body that is not JSON with a 400 problem', async () => {
      const answer = await fetch(`${client.baseUrl}/api/webhooks`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie: client.cookie, 'x-csrf-token': client.csrfToken },
        body: '{"name":',
      });
      expect(answer.status).toBe(400);
    });

    it('rejects JSON nested thousands of levels deep with a 400 problem, not a 500', async () => {
      const answer = await fetch(`${client.baseUrl}/api/webhooks`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie: client.cookie, 'x-csrf-token': client.csrfToken },
        body: `{"name":"Deep","events":${'['.repeat(5_000)}${']'.repeat(5_000)}}`,
      });
      expect(answer.status).toBe(400);
      expect(await answer.json()).toMatchObject({ detail: expect.stringMatching(/nests more than 32 levels/) });
    });
  });

  describe('isolation between merchants', () => {
    it('answers 404 for another merchant’s webhook on every route, and changes nothing', async () => {
      const other = await newMerchantSession(running);
      const theirs = await create({ name: 'Theirs' }, other);
      const id = theirs.body.id;
      const logId = randomUUID();
      for (const [method, path, body] of [
        ['GET', `/api/webhooks/${id}`],
        ['PATCH', `/api/webhooks/${id}`, { name: 'Mine now' }],
        ['DELETE', `/api/webhooks/${id}`],
        ['GET', `/api/webhooks/${id}/secret`],
        ['POST', `/api/webhooks/${id}/secret/rotate`],
        ['GET', `/api/webhooks/${id}/logs`],
        ['POST', `/api/webhooks/${id}/test`],
        ['POST', `/api/webhooks/${id}/logs/${logId}/resend`],
      ] as Array<[string, string, unknown?]>) {
        const answer = await client.request(method, path, body);
        expect([method, path, answer.status]).toEqual([method, path, 404]);
        expect(answer.text).not.toContain('Theirs');
      }
      expect((await client.get('/api/webhooks')).body.data.map((w: { id: string }) => w.id)).not.toContain(id);
      expect((await other.get(`/api/webhooks/${id}`)).body.name).toBe('Theirs');
      expect((await other.get(`/api/webhooks/${id}/secret`)).body.secret).toBe(theirs.body.secret);
    });

    it('does not let a webhook link to another merchant’s integration', async () => {
      const other = await newMerchantSession(running);
      const answer = await create({ integrationId: other.integrationIds[0] });
      expect(answer.status).toBe(400);
      expect(answer.body.errors).toEqual([{ field: 'integrationId', message: 'is not one of your integrations' }]);
      expect((await client.get('/api/integrations')).body.data.map((i: { id: string }) => i.id)).not.toContain(
        other.integrationIds[0],
      );
    });

    it('answers 404 for a malformed id, like an unknown one', async () => {
      expect((await client.get('/api/webhooks/not-a-uuid')).status).toBe(404);
      expect((await client.get(`/api/webhooks/${randomUUID()}`)).status).toBe(404);
    });
  });

  describe('secrets', () => {
    it('are stored only encrypted (AES-256-GCM bound to the webhook id): the plaintext is nowhere in the database', async () => {
      const created = await create();
      const { id, secret } = created.body;
      const rows = await running.db.query(`SELECT ciphertext FROM webhook_secret WHERE webhook_id = $1`, [id]);
      expect(rows).toHaveLength(1);
      const ciphertext: Buffer = rows[0].ciphertext;
      expect(ciphertext.includes(Buffer.from(secret))).toBe(false);
      expect(ciphertext.includes(Buffer.from(secret.slice(6), 'base64'))).toBe(false);
      const cipher = new SecretCipher(Buffer.from(DEV_SECRET_ENCRYPTION_KEY, 'base64'));
      expect(cipher.decrypt(ciphertext, id)).toBe(secret);
      expect(() => cipher.decrypt(ciphertext, randomUUID())).toThrow();
      // Nowhere else either: search every text and bytea column of every table.
      const [{ found }] = await running.db.query(
        `SELECT count(*)::int AS found FROM (
           SELECT url AS v FROM webhook UNION ALL SELECT name FROM webhook
           UNION ALL SELECT encode(ciphertext, 'escape') FROM webhook_secret
           UNION ALL SELECT password_hash FROM backend_user) t WHERE v LIKE '%' || $1 || '%'`,
        [secret.slice(6)],
      );
      expect(found).toBe(0);
    });

    it('are revealed on request', async () => {
      const created = await create();
      const answer = await client.get(`/api/webhooks/${created.body.id}/secret`);
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({ secret: created.body.secret, previousSecretExpiresAt: null });
    });

    it('never lets the secret be cached, whichever spelling of the path the router decodes', async () => {
      const { id } = (await create({ name: 'Cache' })).body;
      for (const path of [`/api/webhooks/${id}/secret`, `/%61pi/webhooks/${id}/secret`]) {
        const answer = await client.get(path);
        expect([path, answer.status, answer.headers.get('cache-control')]).toEqual([path, 200, 'no-store']);
      }
    });

    it('rotate: the new secret is current, the old one keeps signing for 24 hours', async () => {
      const created = await create();
      const id = created.body.id;
      const rotated = await client.post(`/api/webhooks/${id}/secret/rotate`);
      expect(rotated.status).toBe(200);
      // A rotation answers exactly `{secret}`; the reveal tells until when the old one signs.
      expect(rotated.body).toEqual({ secret: expect.stringMatching(SECRET) });
      expect(rotated.body.secret).not.toBe(created.body.secret);
      const revealed = (await client.get(`/api/webhooks/${id}/secret`)).body;
      expect(revealed).toEqual({ secret: rotated.body.secret, previousSecretExpiresAt: expect.any(String) });
      const in24h = Date.now() + 24 * 3600_000;
      expect(Math.abs(new Date(revealed.previousSecretExpiresAt).getTime() - in24h)).toBeLessThan(60_000);

      // What the dispatcher signs with: every secret with no expiry or an expiry in the future.
      const cipher = new SecretCipher(Buffer.from(DEV_SECRET_ENCRYPTION_KEY, 'base64'));
      const valid = await running.db.query(
        `SELECT ciphertext, expires_at FROM webhook_secret WHERE webhook_id = $1 AND (expires_at IS NULL OR expires_at > now()) ORDER BY created_at DESC`,
        [id],
      );
      expect(valid.map((row: { ciphertext: Buffer }) => cipher.decrypt(row.ciphertext, id))).toEqual([
        rotated.body.secret,
        created.body.secret,
      ]);
      expect(valid[0].expires_at).toBeNull();
      expect(Math.abs(valid[1].expires_at.getTime() - in24h)).toBeLessThan(60_000);
    });

    it('rotating twice keeps exactly one current secret; concurrent rotations cannot leave two', async () => {
      const created = await create();
      const id = created.body.id;
      const answers = await Promise.all([1, 2, 3].map(() => client.post(`/api/webhooks/${id}/secret/rotate`)));
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
      const [{ current }] = await running.db.query(
        `SELECT count(*)::int AS current FROM webhook_secret WHERE webhook_id = $1 AND expires_at IS NULL`,
        [id],
      );
      expect(current).toBe(1);
      const revealed = (await client.get(`/api/webhooks/${id}/secret`)).body.secret;
      expect(answers.map((a) => a.body.secret)).toContain(revealed);
    });

    it('never appear in the application log', async () => {
      const created = await create();
      await client.get(`/api/webhooks/${created.body.id}/secret`);
      const rotated = await client.post(`/api/webhooks/${created.body.id}/secret/rotate`);
      await client.post('/api/webhooks', { name: '', url: 'x', events: [] });
      const log = output.join('');
      expect(log).not.toContain(created.body.secret);
      expect(log).not.toContain(rotated.body.secret);
      expect(log).not.toContain(created.body.secret.slice(6));
    });
  });

  describe('custom headers', () => {
    const clear = `Bearer e2e-${randomUUID()}-9fZq`;

    it('are stored encrypted, shown only as their last four characters, and a PATCH replaces or keeps them', async () => {
      const created = await create({
        headers: [
          { name: 'Authorization', value: clear },
          { name: 'X-Tenant', value: 'eu' },
        ],
      });
      expect(created.status).toBe(201);
      const masked = [
        { name: 'Authorization', valueLast4: '9fZq' },
        { name: 'X-Tenant', valueLast4: '' },
      ];
      expect(created.body.headers).toEqual(masked);
      const id = created.body.id;
      expect((await client.get(`/api/webhooks/${id}`)).body.headers).toEqual(masked);
      const listed = (await client.get('/api/webhooks')).body.data.find((w: { id: string }) => w.id === id);
      expect(listed.headers).toEqual(masked);
      for (const answer of [created, await client.get(`/api/webhooks/${id}`), await client.get('/api/webhooks')]) {
        expect(answer.text).not.toContain(clear.slice(0, -4));
      }
      // A webhook without headers shows an empty list; one read can be sent back as it is (values kept).
      expect((await create()).body.headers).toEqual([]);
      const roundTrip = await client.patch(`/api/webhooks/${id}`, { headers: masked });
      expect([roundTrip.status, roundTrip.body.headers]).toEqual([200, masked]);

      // Replace one value, keep one, drop one; then remove all.
      const patched = await client.patch(`/api/webhooks/${id}`, {
        headers: [{ name: 'authorization' }, { name: 'X-New', value: 'value-1234' }],
      });
      expect(patched.body.headers).toEqual([
        { name: 'authorization', valueLast4: '9fZq' },
        { name: 'X-New', valueLast4: '1234' },
      ]);
      const rows = await running.db.query(
        `SELECT name, ciphertext FROM webhook_header WHERE webhook_id = $1 ORDER BY position`,
        [id],
      );
      expect(rows.map((row: { name: string }) => row.name)).toEqual(['authorization', 'X-New']);
      for (const row of rows as Array<{ ciphertext: Buffer }>) {
        expect(row.ciphertext.includes(Buffer.from(clear.slice(0, -4)))).toBe(false);
      }
      expect((await client.patch(`/api/webhooks/${id}`, { headers: [] })).body.headers).toEqual([]);
      expect(output.join('')).not.toContain(clear.slice(0, -4));
    });

    it('refuses reserved names in any letter case, bad names, duplicates, CR/LF and an 11th header with a problem naming the header', async () => {
      const id = (await create()).body.id;
      const cases: Array<[unknown, { field: string; contains: string }]> = [
        [[{ name: 'HOST', value: 'x' }], { field: 'headers.0.name', contains: '"HOST"' }],
        [[{ name: 'Content-Type', value: 'x' }], { field: 'headers.0.name', contains: '"Content-Type"' }],
        [
          [
            { name: 'X-Ok', value: 'x' },
            { name: 'webhook-timestamp', value: '1' },
          ],
          { field: 'headers.1.name', contains: '"webhook-timestamp"' },
        ],
        [[{ name: 'X-Webhook-Signature', value: 'x' }], { field: 'headers.0.name', contains: '"X-Webhook-Signature"' }],
        [[{ name: 'Traceparent', value: 'x' }], { field: 'headers.0.name', contains: '"Traceparent"' }],
        [[{ name: 'X Bad', value: 'x' }], { field: 'headers.0.name', contains: '"X Bad"' }],
        [
          [
            { name: 'X-Dup', value: 'a' },
            { name: 'x-dup', value: 'b' },
          ],
          { field: 'headers', contains: '"x-dup"' },
        ],
        [[{ name: 'X-Injected', value: 'a\r\nX-Evil: 1' }], { field: 'headers.0.value', contains: 'line breaks' }],
        [[{ name: 'X-Empty', value: '' }], { field: 'headers.0.value', contains: '1 to 1024' }],
        [[{ name: 'X-Long', value: 'x'.repeat(1025) }], { field: 'headers.0.value', contains: '1 to 1024' }],
        [
          Array.from({ length: 11 }, (_, i) => ({ name: `X-${i}`, value: 'v' })),
          { field: 'headers', contains: 'at most 10' },
        ],
      ];
      // Only a PATCH may keep a stored value; there is none of this name.
      const keep = await client.patch(`/api/webhooks/${id}`, { headers: [{ name: 'X-Unknown' }] });
      expect([keep.status, keep.body.errors]).toEqual([
        400,
        [{ field: 'headers.0.value', message: 'is required: "X-Unknown" has no stored value to keep' }],
      ]);
      for (const [headers, expected] of cases) {
        for (const answer of [await client.patch(`/api/webhooks/${id}`, { headers }), await create({ headers })]) {
          expect(answer.status).toBe(400);
          expect(answer.headers.get('content-type')).toContain('application/problem+json');
          const error = answer.body.errors.find((e: { field: string }) => e.field === expected.field);
          expect(error?.message).toContain(expected.contains);
        }
      }
      expect((await client.get(`/api/webhooks/${id}`)).body.headers).toEqual([]);
    });
  });

  describe('config-change messages on webhooks.config', () => {
    it('are published on create, update, rotate and delete, so dispatchers refresh at once', async () => {
      const created = await create();
      const id = created.body.id;
      const expected = { v: 1, type: 'webhook.changed', webhookId: id, merchantId: client.merchantId };
      expect((await changeMessageFor(id)).body).toEqual(expected);
      for (const step of [
        () => client.patch(`/api/webhooks/${id}`, { name: 'Changed' }),
        () => client.post(`/api/webhooks/${id}/secret/rotate`),
        () => client.delete(`/api/webhooks/${id}`),
      ]) {
        const before = configTap.messages.length;
        await step();
        expect((await changeMessageFor(id, before)).body).toEqual(expected);
      }
    });

    it('are not published for a refused change', async () => {
      const created = await create();
      await changeMessageFor(created.body.id);
      const before = configTap.messages.length;
      await client.patch(`/api/webhooks/${created.body.id}`, { url: 'http://127.0.0.1/' });
      await client.request('PATCH', `/api/webhooks/${created.body.id}`, { name: 'no csrf' }, { csrf: false });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(configTap.messages.slice(before).filter((m) => m.body.webhookId === created.body.id)).toEqual([]);
    });
  });
});

describe('webhook options (e2e over HTTP)', () => {
  it("tells the UI what 'retry on error' does with this platform's WEBHOOK_RETRY_DELAYS", async () => {
    for (const [env, retry] of [
      [{}, { repeats: 10, withinMs: (1 + 15 + 60 + 120 + 240 + 5 * 1440) * 60_000 }],
      [{ WEBHOOK_RETRY_DELAYS: '30s,2h' }, { repeats: 2, withinMs: 7_230_000 }],
    ] as const) {
      const running = await startApp(env);
      try {
        const client = await newMerchantSession(running);
        const answer = await client.get('/api/webhook-options');
        expect(answer.status).toBe(200);
        expect(answer.body).toMatchObject({ retry, rotationGraceHours: 24, latestVersion: '2026-08-20' });
      } finally {
        await running.close();
      }
    }
  });

  it('tells the UI how long the log is kept: WEBHOOK_LOG_RETENTION, 30 days by default', async () => {
    for (const [env, logRetentionMs] of [
      [{}, 30 * 86_400_000],
      [{ WEBHOOK_LOG_RETENTION: '14d' }, 14 * 86_400_000],
    ] as const) {
      const running = await startApp(env);
      try {
        const client = await newMerchantSession(running);
        expect((await client.get('/api/webhook-options')).body).toMatchObject({ logRetentionMs });
      } finally {
        await running.close();
      }
    }
  });

  it('refuses to start with a retention a repeat could outlive, as the dispatcher does', () => {
    expect(() => loadWebhookConfigConfig({ NODE_ENV: 'test', WEBHOOK_LOG_RETENTION: '5d' })).toThrow(
      /WEBHOOK_LOG_RETENTION must exceed the retry schedule's span/,
    );
  });
});
