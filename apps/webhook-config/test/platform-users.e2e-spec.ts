import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { call, platformHeaders, type RunningApp, seedMerchant, startApp } from './support/harness.js';

describe('platform API: backend users (e2e over HTTP)', () => {
  let running: RunningApp;
  let merchantId: string;

  beforeAll(async () => {
    running = await startApp();
    ({ merchantId } = await seedMerchant(running.db));
  });
  afterAll(async () => {
    await running.close();
  });

  const create = (body: unknown, headers: Record<string, string> = platformHeaders, id = merchantId) =>
    call(running.baseUrl, 'POST', `/internal/merchants/${id}/users`, { body, headers });

  it('creates a login: 201 {id, email}, e-mail stored lower-case, password only as a salted scrypt hash', async () => {
    const answer = await create({ email: 'Owner@Shop.Example', password: 'a long enough password' });
    expect(answer.status).toBe(201);
    expect(answer.body).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), email: 'owner@shop.example' });
    const [row] = await running.db.query(`SELECT merchant_id, email, password_hash FROM backend_user WHERE id = $1`, [
      answer.body.id,
    ]);
    expect(row.merchant_id).toBe(merchantId);
    expect(row.password_hash).toMatch(/^scrypt\$32768\$8\$3\$/);
    expect(row.password_hash).not.toContain('a long enough password');
  });

  it('answers 409 for an e-mail that already has a login (any letter case)', async () => {
    await create({ email: 'twice@shop.example', password: 'a long enough password' });
    const again = await create({ email: 'TWICE@shop.example', password: 'another long password' });
    expect(again.status).toBe(409);
    expect(again.headers.get('content-type')).toContain('application/problem+json');
  });

  it('answers 404 for an unknown or malformed merchant id', async () => {
    expect(
      (await create({ email: 'x@shop.example', password: 'a long enough password' }, platformHeaders, randomUUID()))
        .status,
    ).toBe(404);
    expect(
      (await create({ email: 'x@shop.example', password: 'a long enough password' }, platformHeaders, 'nope')).status,
    ).toBe(404);
  });

  it('enforces the password policy and names the field', async () => {
    const short = await create({ email: 'short@shop.example', password: 'short' });
    expect(short.status).toBe(400);
    expect(short.body.errors).toEqual([{ field: 'password', message: 'must be at least 10 characters long' }]);
    const blank = await create({ email: 'blank@shop.example', password: '            ' });
    expect(blank.body.errors).toEqual([{ field: 'password', message: 'must not be only spaces' }]);
    const own = await create({ email: 'johnsmith@shop.example', password: 'johnsmith-2026!' });
    expect(own.body.errors).toEqual([{ field: 'password', message: 'must not contain the e-mail address' }]);
    const badEmail = await create({ email: 'not-an-email', password: 'a long enough password' });
    expect(badEmail.body.errors).toEqual([{ field: 'email', message: 'must be an e-mail address' }]);
  });

  it('reads the body only as JSON: a form or text answers 415 problem and creates no login', async () => {
    const email = 'form@shop.example';
    for (const [contentType, body] of [
      ['application/x-www-form-urlencoded', `email=${encodeURIComponent(email)}&password=a+long+enough+password`],
      ['text/plain', JSON.stringify({ email, password: 'a long enough password' })],
    ]) {
      const answer = await fetch(`${running.baseUrl}/internal/merchants/${merchantId}/users`, {
        method: 'POST',
        headers: { ...platformHeaders, 'content-type': contentType },
        body,
      });
      expect([contentType, answer.status]).toEqual([contentType, 415]);
      expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(await answer.json()).toMatchObject({ type: 'urn:problem:unsupported-media-type', status: 415 });
    }
    const [{ count }] = await running.db.query(`SELECT count(*)::int AS count FROM backend_user WHERE email = $1`, [
      email,
    ]);
    expect(count).toBe(0);
  });

  it('requires the platform token (constant-time compare), answering 401 with WWW-Authenticate', async () => {
    for (const headers of [
      {},
      { authorization: 'Bearer wrong-token-of-some-length' },
      { authorization: 'Basic abc' },
    ] as Array<Record<string, string>>) {
      const answer = await create({ email: 'nope@shop.example', password: 'a long enough password' }, headers);
      expect(answer.status).toBe(401);
      expect(answer.headers.get('www-authenticate')).toBe('Bearer');
    }
    const [{ count }] = await running.db.query(
      `SELECT count(*)::int AS count FROM backend_user WHERE email = 'nope@shop.example'`,
    );
    expect(count).toBe(0);
  });
});
