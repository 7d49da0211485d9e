import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import {
  call,
  createUser,
  PASSWORD,
  type RunningApp,
  seedMerchant,
  sessionCookieOf,
  signIn,
  startApp,
} from './support/harness.js';

describe('merchant backend sessions (e2e over HTTP)', () => {
  let running: RunningApp;
  let merchantId: string;
  let email: string;

  beforeAll(async () => {
    // TRUST_PROXY lets each test speak from its own client address (X-Forwarded-For), so the per-address
    // login limit of one test does not affect the others sharing this database.
    running = await startApp({ TRUST_PROXY: 'loopback' });
    ({ merchantId } = await seedMerchant(running.db));
    email = await createUser(running.baseUrl, merchantId);
  });
  afterAll(async () => {
    await running.close();
  });

  let addressCounter = 1;
  const newAddress = () => `198.18.${Math.floor(addressCounter / 250)}.${(addressCounter++ % 250) + 1}`;
  const signInAs = (body: unknown, address = newAddress()) =>
    call(running.baseUrl, 'POST', '/api/session', { body, headers: { 'x-forwarded-for': address } });

  it('signs in: 200 {csrfToken} and an HttpOnly, SameSite=Strict, Path=/ session cookie', async () => {
    const answer = await signInAs({ email, password: PASSWORD });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ email, csrfToken: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
    const setCookie = answer.headers.getSetCookie().find((value) => value.startsWith('wc_session='))!;
    expect(setCookie).toMatch(/; HttpOnly/);
    expect(setCookie).toMatch(/; SameSite=Strict/);
    expect(setCookie).toMatch(/; Path=\//);
    expect(setCookie).not.toMatch(/; Secure/); // plain HTTP in a test; see the next test
    expect(answer.headers.get('cache-control')).toBe('no-store');
  });

  it('marks the cookie Secure when the browser came over HTTPS (X-Forwarded-Proto behind a trusted proxy)', async () => {
    const answer = await call(running.baseUrl, 'POST', '/api/session', {
      body: { email, password: PASSWORD },
      headers: { 'x-forwarded-proto': 'https', 'x-forwarded-for': newAddress() },
    });
    expect(answer.headers.getSetCookie().find((value) => value.startsWith('wc_session='))).toMatch(/; Secure/);
  });

  it('stores only a hash of the session token, server-side, with an expiry', async () => {
    const answer = await signInAs({ email, password: PASSWORD });
    const token = sessionCookieOf(answer.headers)!.split('=')[1];
    const rows = await running.db.query(`SELECT token_hash, expires_at FROM backend_session WHERE merchant_id = $1`, [
      merchantId,
    ]);
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row.token_hash.toString('utf8')).not.toContain(token);
      expect(row.token_hash.toString('base64url')).not.toBe(token);
      expect(row.expires_at.getTime()).toBeGreaterThan(Date.now());
    }
  });

  it('GET /api/session tells who is signed in and repeats the CSRF token (for a reloaded page)', async () => {
    const client = await signIn(running.baseUrl, email, merchantId);
    const answer = await client.get('/api/session');
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ email, csrfToken: client.csrfToken });
  });

  it('answers a wrong password and an unknown e-mail with the same generic 401 (no user enumeration)', async () => {
    const wrongPassword = await signInAs({ email, password: 'not the password' });
    const unknownEmail = await signInAs({ email: `nobody-${randomUUID()}@shop.example`, password: 'not the password' });
    expect(wrongPassword.status).toBe(401);
    expect(unknownEmail.status).toBe(401);
    expect(wrongPassword.body).toEqual(unknownEmail.body);
    expect(wrongPassword.body.detail).toBe('The e-mail address or the password is not correct.');
    expect(wrongPassword.headers.getSetCookie()).toEqual([]);
  });

  it('kills the cookie on DELETE /api/session: the same cookie is refused afterwards', async () => {
    const client = await signIn(running.baseUrl, email, merchantId);
    expect((await client.get('/api/webhooks')).status).toBe(200);
    const signOut = await client.delete('/api/session');
    expect(signOut.status).toBe(204);
    expect(signOut.headers.getSetCookie().find((value) => value.startsWith('wc_session='))).toMatch(
      /Expires=Thu, 01 Jan 1970|Max-Age=0/,
    );
    const after = await client.get('/api/webhooks');
    expect(after.status).toBe(401);
    expect(after.headers.get('content-type')).toContain('application/problem+json');
    expect((await client.get('/api/session')).status).toBe(401);
  });

  it('requires a session on every /api route', async () => {
    for (const [method, path] of [
      ['GET', '/api/webhooks'],
      ['GET', '/api/integrations'],
      ['GET', '/api/session'],
      ['POST', '/api/webhooks'],
      ['GET', `/api/webhooks/${randomUUID()}/logs`],
    ]) {
      expect(
        (await call(running.baseUrl, method, path, { headers: { cookie: `wc_session=${'A'.repeat(43)}` } })).status,
      ).toBe(401);
    }
  });

  it('refuses a mutating request without the right X-CSRF-Token with 403, changing nothing', async () => {
    const client = await signIn(running.baseUrl, email, merchantId);
    const other = await signIn(running.baseUrl, email, merchantId);
    const body = { name: 'csrf', url: 'https://93.184.215.14/hook', events: ['transaction'] };
    const missing = await client.request('POST', '/api/webhooks', body, { csrf: false });
    expect(missing.status).toBe(403);
    expect(missing.headers.get('content-type')).toContain('application/problem+json');
    const wrong = await call(running.baseUrl, 'POST', '/api/webhooks', {
      body,
      headers: { cookie: client.cookie, 'x-csrf-token': other.csrfToken },
    });
    expect(wrong.status).toBe(403);
    expect((await client.request('DELETE', '/api/session', undefined, { csrf: false })).status).toBe(403);
    expect((await client.get('/api/webhooks')).body.data).toEqual([]);
  });

  it('limits guessing on one e-mail from many addresses to 5 failures a minute in total (429, Retry-After)', async () => {
    const { merchantId: m } = await seedMerchant(running.db);
    const victim = await createUser(running.baseUrl, m);
    for (let i = 0; i < 5; i += 1)
      expect((await signInAs({ email: victim, password: 'wrong password' })).status).toBe(401);
    // From yet another address that never signed in to it, even the right password waits for the oldest failure
    // to be a minute old.
    const blocked = await signInAs({ email: victim, password: PASSWORD });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(30);
    expect(Number(blocked.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect(blocked.body.detail).toMatch(/Too many failed sign-in attempts/);
    // The limit is per e-mail: another account from the same address is unaffected.
    expect((await signInAs({ email, password: PASSWORD })).status).toBe(200);
  });

  it('an attacker locked out of an e-mail does not lock out its owner, who signs in from an address used before', async () => {
    const { merchantId: m } = await seedMerchant(running.db);
    const victim = await createUser(running.baseUrl, m);
    const owner = newAddress();
    expect((await signInAs({ email: victim, password: PASSWORD }, owner)).status).toBe(200);
    // The attacker knows the e-mail: five wrong passwords lock its address out for that e-mail for 15 minutes ...
    const attacker = newAddress();
    for (let i = 0; i < 5; i += 1)
      expect((await signInAs({ email: victim, password: 'wrong password' }, attacker)).status).toBe(401);
    const lockedOut = await signInAs({ email: victim, password: 'wrong password' }, attacker);
    expect([lockedOut.status, Number(lockedOut.headers.get('retry-after'))]).toEqual([429, expect.any(Number)]);
    expect(Number(lockedOut.headers.get('retry-after'))).toBeGreaterThan(800);
    // ... and its other addresses share the e-mail's budget of 5 a minute, spent now.
    expect((await signInAs({ email: victim, password: 'wrong password' })).status).toBe(429);
    // The owner, from the address it signed in from before, is let in.
    const ownSignIn = await signInAs({ email: victim, password: PASSWORD }, owner);
    expect(ownSignIn.status).toBe(200);
  });

  it('limits failed sign-ins per client address across e-mails (20 in 15 minutes)', async () => {
    const address = newAddress();
    for (let i = 0; i < 20; i += 1) {
      expect((await signInAs({ email: `guess-${i}@shop.example`, password: 'wrong password' }, address)).status).toBe(
        401,
      );
    }
    expect((await signInAs({ email, password: PASSWORD }, address)).status).toBe(429);
    expect((await signInAs({ email, password: PASSWORD }, newAddress())).status).toBe(200);
  }, 60_000);

  it('takes the client address from the trusted proxy, not from X-Forwarded-For entries the client wrote', async () => {
    // The trusted proxy (loopback here) appends the address it saw; anything left of it came from the client.
    const address = newAddress();
    for (let i = 0; i < 20; i += 1) {
      const forged = `203.0.113.${i + 1}, ${address}`;
      const answer = await signInAs({ email: `forger-${i}@shop.example`, password: 'wrong password' }, forged);
      expect(answer.status).toBe(401);
    }
    const next = await signInAs({ email, password: PASSWORD }, `203.0.113.250, ${address}`);
    expect(next.status).toBe(429);
  }, 60_000);

  it('holds the per-e-mail limit under concurrent attempts (attempts are counted before checking)', async () => {
    const { merchantId: m } = await seedMerchant(running.db);
    const victim = await createUser(running.baseUrl, m);
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => signInAs({ email: victim, password: 'wrong password' })),
    );
    const statuses = answers.map((answer) => answer.status);
    // Exactly the limit get their password checked, the others are refused before it.
    expect(statuses.filter((status) => status === 401)).toHaveLength(5);
    expect(statuses.filter((status) => status === 429)).toHaveLength(7);
  }, 60_000);

  it('counts attempts in PostgreSQL, so a second process enforces the same limit', async () => {
    const second = await startApp({ TRUST_PROXY: 'loopback' });
    try {
      const { merchantId: m } = await seedMerchant(running.db);
      const victim = await createUser(running.baseUrl, m);
      for (let i = 0; i < 5; i += 1) {
        const target = i % 2 === 0 ? running.baseUrl : second.baseUrl;
        expect(
          (
            await call(target, 'POST', '/api/session', {
              body: { email: victim, password: 'wrong' },
              headers: { 'x-forwarded-for': newAddress() },
            })
          ).status,
        ).toBe(401);
      }
      const blocked = await call(second.baseUrl, 'POST', '/api/session', {
        body: { email: victim, password: PASSWORD },
        headers: { 'x-forwarded-for': newAddress() },
      });
      expect(blocked.status).toBe(429);
    } finally {
      await second.close();
    }
  }, 60_000);

  it('accepts sign-in only as JSON: a cross-site form (text/plain or urlencoded) cannot sign anyone in', async () => {
    for (const [type, body] of [
      ['text/plain', JSON.stringify({ email, password: PASSWORD })],
      [
        'application/x-www-form-urlencoded',
        `email=${encodeURIComponent(email)}&password=${encodeURIComponent(PASSWORD)}`,
      ],
      [
        'multipart/form-data; boundary=x',
        `--x\r\nContent-Disposition: form-data; name="email"\r\n\r\n${email}\r\n--x--\r\n`,
      ],
    ]) {
      const response = await fetch(`${running.baseUrl}/api/session`, {
        method: 'POST',
        headers: { 'content-type': type, 'x-forwarded-for': newAddress() },
        body,
      });
      expect([type, response.status]).toEqual([type, 415]);
      expect(response.headers.get('content-type')).toContain('application/problem+json');
      expect(response.headers.getSetCookie()).toEqual([]);
    }
    const json = await call(running.baseUrl, 'POST', '/api/session', {
      body: { email, password: PASSWORD },
      headers: { 'content-type': 'application/json; charset=utf-8', 'x-forwarded-for': newAddress() },
    });
    expect(json.status).toBe(200);
    // The router decodes the path (`/%61pi/session` is `/api/session`); the JSON-only rule follows the route.
    const encoded = await fetch(`${running.baseUrl}/%61pi/session`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', 'x-forwarded-for': newAddress() },
      body: JSON.stringify({ email, password: PASSWORD }),
    });
    expect(encoded.status).toBe(415);
    expect(encoded.headers.getSetCookie()).toEqual([]);
  });

  it('refuses an e-mail PostgreSQL cannot store (NUL) with 400, not 500', async () => {
    const answer = await signInAs({ email: 'a\u0000b@shop.example', password: 'wrong password' });
    expect(answer.status).toBe(400);
    expect(answer.body.errors).toEqual([{ field: 'email', message: 'must not contain NUL characters' }]);
  });

  it('names the field when the sign-in body is incomplete, with one true message each', async () => {
    for (const [body, errors] of [
      [{ email }, [{ field: 'password', message: 'is required' }]],
      [
        {},
        [
          { field: 'email', message: 'is required' },
          { field: 'password', message: 'is required' },
        ],
      ],
      [
        { email: 5, password: '' },
        [
          { field: 'email', message: 'must be a string' },
          { field: 'password', message: 'must not be empty' },
        ],
      ],
      [
        { email: 'x'.repeat(255), password: PASSWORD },
        [{ field: 'email', message: 'must be at most 254 characters long' }],
      ],
    ] as const) {
      const answer = await signInAs(body);
      expect([body, answer.status, answer.body.errors]).toEqual([body, 400, errors]);
    }
  });
});
