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

  const signIn = async (service: LoginThrottleService, email: string, address: string) => {
    const attempt = await service.admit(email, address);
    if (!attempt.admitted) throw new Error(`expected ${address} to be admitted for ${email}`);
    await attempt.succeeded();
  };
  const retryAfter = (attempt: Awaited<ReturnType<LoginThrottleService['admit']>>) =>
    attempt.admitted ? undefined : attempt.retryAfterSeconds;

  it('admits the allowed failures per e-mail and address, then refuses that address for 15 minutes', async () => {
    const email = `${randomUUID()}@shop.example`;
    for (let i = 0; i < LOGIN_LIMITS.maxFailuresPerEmailAndAddress; i += 1)
      expect((await fail(first, email, '203.0.113.1')).admitted).toBe(true);
    const refused = retryAfter(await first.admit(email, '203.0.113.1'));
    expect(refused).toBeGreaterThan(LOGIN_LIMITS.windowMs / 1000 - 30);
    expect(refused).toBeLessThanOrEqual(LOGIN_LIMITS.windowMs / 1000);
  });

  it('limits guessing on one e-mail from many addresses to a few failures a minute in total', async () => {
    const email = `${randomUUID()}@shop.example`;
    for (let i = 0; i < LOGIN_LIMITS.maxFailuresPerEmail; i += 1)
      expect((await fail(first, email, `203.0.113.${10 + i}`)).admitted).toBe(true);
    // A new address is refused too, until the oldest failure is a minute old.
    const refused = retryAfter(await first.admit(email, '203.0.113.99'));
    expect(refused).toBeGreaterThan(LOGIN_LIMITS.emailWindowMs / 1000 - 30);
    expect(refused).toBeLessThanOrEqual(LOGIN_LIMITS.emailWindowMs / 1000);
  });

  it('an attacker locked out of an e-mail does not lock out its owner from an address that signed in before', async () => {
    const email = `${randomUUID()}@shop.example`;
    const owner = '198.51.100.7';
    await signIn(first, email, owner);
    // The attacker: the allowed failures from one address, then from others, until every budget it can reach is spent.
    for (let i = 0; i < LOGIN_LIMITS.maxFailuresPerEmailAndAddress; i += 1) await fail(second, email, '192.0.2.66');
    expect(retryAfter(await second.admit(email, '192.0.2.66'))).toBeGreaterThan(LOGIN_LIMITS.emailWindowMs / 1000);
    expect((await second.admit(email, '192.0.2.67')).admitted).toBe(false);
    // The owner's address is still admitted, after failures of its own too (a mistyped password).
    expect((await fail(first, email, owner)).admitted).toBe(true);
    await signIn(first, email, owner);
  });

  it('an unknown e-mail is throttled exactly like a known one from an address that never signed in to it', async () => {
    const known = `${randomUUID()}@shop.example`;
    const unknown = `${randomUUID()}@shop.example`;
    await signIn(first, known, '198.51.100.8');
    const outcomes = async (email: string) => {
      const seen: Array<number | undefined> = [];
      for (let i = 0; i < LOGIN_LIMITS.maxFailuresPerEmail + 1; i += 1) {
        const attempt = await fail(first, email, `203.0.113.${100 + i}`);
        seen.push(attempt.admitted ? 0 : Math.ceil(attempt.retryAfterSeconds / 10));
      }
      return seen;
    };
    expect(await outcomes(unknown)).toEqual(await outcomes(known));
  });

  it('shares the count between processes', async () => {
    const email = `${randomUUID()}@shop.example`;
    for (let i = 0; i < LOGIN_LIMITS.maxFailuresPerEmail; i += 1)
      await fail(i % 2 ? first : second, email, `198.51.100.${i}`);
    // Refused by the e-mail's shared budget in either process.
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

  it('forgets failures older than their window: a minute for the e-mail’s shared ones, 15 for the rest', async () => {
    const email = `${randomUUID()}@shop.example`;
    const address = '203.0.113.50';
    const insert = (key: string, ageSeconds: number) =>
      pools[0].query(
        `INSERT INTO login_failure (key, created_at)
         SELECT $1, now() - make_interval(secs => $2) FROM generate_series(1, 10)`,
        [key, ageSeconds],
      );
    await insert(`email:${email}`, LOGIN_LIMITS.emailWindowMs / 1000 + 1);
    await insert(`pair:${email} ${address}`, LOGIN_LIMITS.windowMs / 1000 + 1);
    await insert(`addr:${address}`, LOGIN_LIMITS.windowMs / 1000 + 1);
    expect((await first.admit(email, address)).admitted).toBe(true);
  });

  it('a successful sign-in clears the e-mail’s failures from that address and its shared ones, not the address’s', async () => {
    const email = `${randomUUID()}@shop.example`;
    const address = `2001:db8::${Math.floor(Math.random() * 0xffff).toString(16)}`;
    for (let i = 0; i < LOGIN_LIMITS.maxFailuresPerEmailAndAddress - 1; i += 1) await fail(first, email, address);
    await signIn(first, email, address);
    const rows = async (key: string) =>
      (await pools[0].query(`SELECT count(*)::int AS n FROM login_failure WHERE key = $1`, [key]))[0].n as number;
    expect(await rows(`pair:${email} ${address}`)).toBe(0);
    expect(await rows(`email:${email}`)).toBe(0);
    expect(await rows(`addr:${address}`)).toBe(LOGIN_LIMITS.maxFailuresPerEmailAndAddress - 1);
  });
});
