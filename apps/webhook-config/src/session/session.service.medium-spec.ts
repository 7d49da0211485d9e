import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { dataSourceOptions } from '#persistence';
import { insertMerchant, testEnv } from '#testing';
import { DataSource } from 'typeorm';
import { BackendUserEntity } from '../auth/backend-user.entity.js';
import { BackendUserRepository } from '../auth/backend-user.repository.js';
import { BackendUserService } from '../auth/backend-user.service.js';
import { MerchantRef } from '../auth/merchant-ref.entity.js';
import { PasswordHasher } from '../auth/password.hasher.js';
import { BackendSessionEntity } from './backend-session.entity.js';
import { LoginThrottleRepository } from './login-throttle.repository.js';
import { LoginThrottleService } from './login-throttle.service.js';
import { SESSION_POLICY } from './session.policy.js';
import { SessionRepository } from './session.repository.js';
import { SessionService } from './session.service.js';

/**
 * Sign-in, sessions and sign-out on a real database: the same answer for a wrong password and an unknown e-mail, a
 * session found by its cookie token only while it lives (not after sign-out, not idle too long), and sign-in
 * throttled after repeated failures.
 */
describe('SessionService (real PostgreSQL)', () => {
  // Cheap scrypt parameters: the hashing itself has its own spec.
  const hasher = new PasswordHasher({ N: 2 ** 10, r: 8, p: 1 });
  let db: DataSource;
  let sessions: SessionService;
  let users: BackendUserService;
  let merchantId: string;

  beforeAll(async () => {
    db = await new DataSource(
      dataSourceOptions({
        url: testEnv().databaseUrl,
        entities: [BackendUserEntity, MerchantRef, BackendSessionEntity],
        poolSize: 4,
      }),
    ).initialize();
    const userRepository = new BackendUserRepository(
      db.getRepository(BackendUserEntity),
      db.getRepository(MerchantRef),
    );
    users = new BackendUserService(userRepository, hasher);
    sessions = new SessionService(
      userRepository,
      hasher,
      new SessionRepository(db.getRepository(BackendSessionEntity)),
      new LoginThrottleService(new LoginThrottleRepository(db)),
    );
    merchantId = await insertMerchant(db);
  });
  afterAll(async () => {
    await db.destroy();
  });

  const newUser = async () => {
    const email = `user-${randomUUID().slice(0, 8)}@example.com`;
    await users.create(merchantId, { email, password: 'correct horse battery' });
    return email;
  };
  /** A client address of its own per test: the throttle counts per address too. */
  const address = () => `203.0.113.${Math.floor(Math.random() * 250) + 1}`;

  it('signs in with the right password (any case of the e-mail), and the cookie token finds the session until sign-out', async () => {
    const email = await newUser();
    const outcome = await sessions.signIn(email.toUpperCase(), 'correct horse battery', address());
    if (outcome.kind !== 'signed-in') throw new Error(`not signed in: ${outcome.kind}`);
    expect(outcome.email).toBe(email);
    const session = await sessions.authenticate(outcome.token);
    expect(session).toMatchObject({ merchantId, email, token: outcome.token });
    expect(sessions.csrfTokenOf(session!)).toBe(outcome.csrfToken);
    // The database keeps a hash of the token, never the token.
    const stored = await db.query(`SELECT token_hash FROM backend_session WHERE id = $1`, [session!.sessionId]);
    expect(JSON.stringify(stored)).not.toContain(outcome.token);

    await sessions.signOut(session!);
    expect(await sessions.authenticate(outcome.token)).toBeUndefined();
    expect(await sessions.authenticate('not-a-token')).toBeUndefined();
    expect(await sessions.authenticate(undefined)).toBeUndefined();
  });

  it('answers a wrong password and an unknown e-mail alike', async () => {
    const email = await newUser();
    const from = address();
    expect(await sessions.signIn(email, 'wrong horse battery', from)).toEqual({ kind: 'invalid' });
    expect(await sessions.signIn(`nobody-${randomUUID()}@example.com`, 'correct horse battery', from)).toEqual({
      kind: 'invalid',
    });
  });

  it('finds no session idle for longer than the idle timeout', async () => {
    const email = await newUser();
    const outcome = await sessions.signIn(email, 'correct horse battery', address());
    if (outcome.kind !== 'signed-in') throw new Error(`not signed in: ${outcome.kind}`);
    const session = await sessions.authenticate(outcome.token);
    await db.query(`UPDATE backend_session SET last_seen_at = now() - $2 * interval '1 ms' WHERE id = $1`, [
      session!.sessionId,
      SESSION_POLICY.idleTimeoutMs + 60_000,
    ]);
    expect(await sessions.authenticate(outcome.token)).toBeUndefined();
  });

  it('throttles an e-mail after repeated failures, even with the right password then', async () => {
    const email = await newUser();
    const from = address();
    let outcome = await sessions.signIn(email, 'wrong', from);
    for (let i = 0; i < 50 && outcome.kind !== 'throttled'; i += 1)
      outcome = await sessions.signIn(email, 'wrong', from);
    expect(outcome.kind).toBe('throttled');
    const right = await sessions.signIn(email, 'correct horse battery', from);
    expect(right.kind).toBe('throttled');
    if (right.kind === 'throttled') expect(right.retryAfterSeconds).toBeGreaterThan(0);
  });
});
