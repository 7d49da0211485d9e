import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import {
  call,
  newMerchantSession,
  platformHeaders,
  PUBLIC_URL,
  startApp,
  type Client,
  type RunningApp,
} from './support/harness.js';

/**
 * The three requests the fuzz tier (fuzz.e2e-spec.ts) found answered 500 before the HTTP edge's input guard
 * (issue #35), replayed as sent: each is now a 400 naming the field, and nothing is stored.
 */
describe('the fuzz tier’s finds, replayed (e2e over HTTP)', () => {
  let running: RunningApp;
  let client: Client;
  let webhookId: string;

  beforeAll(async () => {
    running = await startApp();
    client = await newMerchantSession(running);
    webhookId = (await client.post('/api/webhooks', { name: 'Shop', url: PUBLIC_URL, events: ['transaction'] })).body
      .id;
  });
  afterAll(async () => {
    await running.close();
  });

  it('GET /api/webhooks/{id}/logs?referenceId=x%00y is a 400 naming referenceId (PostgreSQL never sees the NUL)', async () => {
    const answer = await client.get(`/api/webhooks/${webhookId}/logs?referenceId=x%00y`);
    expect([answer.status, answer.headers.get('content-type'), answer.body.errors]).toEqual([
      400,
      expect.stringMatching(/^application\/problem\+json/),
      [{ field: 'referenceId', message: 'must not contain NUL characters' }],
    ]);
  });

  it.each([
    ['a lone high surrogate', '\ud800'],
    ['a lone low surrogate', 'owner\udc00@shop.example'],
  ])('POST /internal/merchants/{merchantId}/users with %s in the e-mail is a 400 naming email', async (_, email) => {
    // JSON.stringify writes a lone surrogate as the escape \ud800, exactly as a client would send it.
    const answer = await call(running.baseUrl, 'POST', `/internal/merchants/${client.merchantId}/users`, {
      body: { email, password: 'correct horse battery staple' },
      headers: platformHeaders,
    });
    expect([answer.status, answer.body.errors]).toEqual([
      400,
      [{ field: 'email', message: 'must be well-formed Unicode text (no lone surrogates or invalid UTF-8)' }],
    ]);
    const [{ n }] = await running.db.query(`SELECT count(*)::int AS n FROM backend_user WHERE merchant_id = $1`, [
      client.merchantId,
    ]);
    expect(n).toBe(1); // the session's own user only
  });

  it('a query whose percent-encoding is not UTF-8 is a 400 naming the parameter', async () => {
    const answer = await client.get(`/api/webhooks/${webhookId}/logs?referenceId=%ED%A0%80&subject=${randomUUID()}`);
    expect([answer.status, answer.body.errors]).toEqual([
      400,
      [{ field: 'referenceId', message: 'must be well-formed Unicode text (no lone surrogates or invalid UTF-8)' }],
    ]);
  });
});
