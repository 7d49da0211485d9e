import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { dataSourceOptions } from '#persistence';
import { testEnv } from '#testing';
import { DataSource } from 'typeorm';
import { LoginThrottleRepository } from './login-throttle.repository.js';
import { type AdmittedAttempt, LoginThrottleService } from './login-throttle.service.js';
import { LOGIN_LIMITS } from './session.policy.js';

/** Two connection pools stand in for two webhook-config processes sharing the database. */
describe('LoginThrottleService (real PostgreSQL)', () => {
  const pools: DataSource[] = [];
  let first: LoginThrottleService;
  let second: LoginThrottleService;

  beforeAll(async () => {
    for (let i = 0; i < 2; i += 1) {
      const pool = new DataSource(
        dataSourceOptions({ url: testEnv().databaseUrl, poolSize: 15, applicationName: `throttle-${i}` }),
      );
      await pool.initialize();
      pools.push(pool);
    }
    [first, second] = pools.map((pool) => new LoginThrottleService(new LoginThrottleRepository(pool)));
  });
  afterAll(async () => {
    await Promise.all(pools.map((pool) => pool.destroy()));
  });

  const fail = async (service: LoginThrottleService, email: string, address: string) => {
    const attempt = await service.admit(email, address);
    if (attempt.admitted) await attempt.failed();
    return attempt;
  };

  it('admits the allowed failures per e-mail, then refuses with the time until the oldest leaves the window', async () => {
    const email = `${randomUUID()}@shop.example`;
    for (let i = 0; i < LOGIN_LIMITS.maxFailuresPerEmail; i += 1)
      expect((await fail(first, email, `203.0.113.${i}`)).admitted).toBe(true);
    const refused = await first.admit(email, '203.0.113.99');
    expect(refused).toEqual({ admitted: false, retryAfterSeconds: expect.any(Number) });
    if (!refused.admitted) {
      expect(refused.retryAfterSeconds).toBeGreaterThan(LOGIN_LIMITS.windowMs / 1000 - 30);
      expect(refused.retryAfterSeconds).toBeLessThanOrEqual(LOGIN_LIMITS.windowMs / 1000);
    }
  });

  it('shares the count between processes', async () => {
    const email = `${randomUUID()}@shop.example`;
    for (let i = 0; i < LOGIN_LIMITS.maxFailuresPerEmail; i += 1)
      await fail(i % 2 ? first : second, email, `198.51.100.${i}`);
    expect((await second.admit(email, '198.51.100.200')).admitted).toBe(false);
    expect((await first.admit(email, '198.51.100.201')).admitted).toBe(false);
  });

  it('lets exactly the limit through, however many arrive at once from both processes', async () => {
    const email = `${randomUUID()}@shop.example`;
    const attempts = await Promise.all(
      Array.from({ length: 24 }, (_, i) => (i % 2 ? first : second).admit(email, `192.0.2.${i}`)),
    );
    const admitted = attempts.filter((a): a is AdmittedAttempt => a.admitted);
    expect(admitted).toHaveLength(LOGIN_LIMITS.maxFailuresPerEmail);
    await Promise.all(admitted.map((attempt) => attempt.failed()));
  });

  it('forgets failures older than the window', async () => {
    const email = `${randomUUID()}@shop.example`;
    await pools[0].query(
      `INSERT INTO login_failure (key, created_at) SELECT $1, now() - make_interval(secs => $2) FROM generate_series(1, 10)`,
      [`email:${email}`, LOGIN_LIMITS.windowMs / 1000 + 1],
    );
    expect((await first.admit(email, '203.0.113.50')).admitted).toBe(true);
  });

  it('a successful sign-in clears that e-mail’s failures, not the address’s', async () => {
    const email = `${randomUUID()}@shop.example`;
    const address = `2001:db8::${Math.floor(Math.random() * 0xffff).toString(16)}`;
    for (let i = 0; i < LOGIN_LIMITS.maxFailuresPerEmail - 1; i += 1) await fail(first, email, address);
    const attempt = await first.admit(email, address);
    if (!attempt.admitted) throw new Error('expected to be admitted');
    await attempt.succeeded();
    const [{ emailRows }] = await pools[0].query(
      `SELECT count(*)::int AS "emailRows" FROM login_failure WHERE key = $1`,
      [`email:${email}`],
    );
    const [{ addressRows }] = await pools[0].query(
      `SELECT count(*)::int AS "addressRows" FROM login_failure WHERE key = $1`,
      [`addr:${address}`],
    );
    expect(emailRows).toBe(0);
    expect(addressRows).toBe(LOGIN_LIMITS.maxFailuresPerEmail - 1);
  });
});
