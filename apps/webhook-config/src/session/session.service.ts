import { Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { BackendUserRepository } from '../auth/backend-user.repository.js';
import { normalizeEmail } from '../auth/dtos/create-backend-user.dto.js';
import { PasswordHasher } from '../auth/password.hasher.js';
import { LoginThrottleService } from './login-throttle.service.js';
import type { SessionContext } from './session.context.js';
import { SESSION_POLICY } from './session.policy.js';
import { SessionRepository } from './session.repository.js';
import { csrfTokenFor, hashSessionToken, looksLikeSessionToken, newSessionToken } from './session.tokens.js';

export type SignInOutcome =
  | { kind: 'signed-in'; token: string; csrfToken: string; email: string }
  | { kind: 'invalid' }
  | { kind: 'throttled'; retryAfterSeconds: number };

/** Sign-in, sign-out and recognising the session behind a cookie. */
@Injectable()
export class SessionService {
  private readonly logger = new Logger('Session');

  constructor(
    private readonly users: BackendUserRepository,
    private readonly hasher: PasswordHasher,
    private readonly sessions: SessionRepository,
    private readonly throttle: LoginThrottleService,
  ) {}

  /**
   * Checks the credentials (the same work and the same answer whether or not the e-mail exists) and opens a
   * session. Attempts beyond the limits are refused before any password is checked.
   */
  async signIn(emailInput: string, password: string, clientAddress: string): Promise<SignInOutcome> {
    const email = normalizeEmail(emailInput);
    const attempt = await this.throttle.admit(email, clientAddress);
    if (!attempt.admitted) {
      this.logger.warn(`sign-in refused: too many failed attempts (client ${clientAddress})`);
      return { kind: 'throttled', retryAfterSeconds: attempt.retryAfterSeconds };
    }
    const user = await this.users.findByEmail(email);
    const valid = user
      ? await this.hasher.verify(password, user.passwordHash)
      : await this.hasher.burn(password).then(() => false);
    if (!user || !valid) {
      await attempt.failed();
      return { kind: 'invalid' };
    }
    await attempt.succeeded();
    await this.sessions.deleteDead(SESSION_POLICY.idleTimeoutMs);
    const token = newSessionToken();
    await this.sessions.create({
      id: randomUUID(),
      tokenHash: hashSessionToken(token),
      userId: user.id,
      merchantId: user.merchantId,
      expiresAt: new Date(Date.now() + SESSION_POLICY.absoluteLifetimeMs),
    });
    return { kind: 'signed-in', token, csrfToken: csrfTokenFor(token), email: user.email };
  }

  /** The live session behind a cookie token, or undefined (unknown, signed out, expired or idle too long). */
  async authenticate(token: string | undefined): Promise<SessionContext | undefined> {
    if (!looksLikeSessionToken(token)) return undefined;
    const row = await this.sessions.findActive(hashSessionToken(token), SESSION_POLICY.idleTimeoutMs);
    if (!row) return undefined;
    if (Date.now() - row.lastSeenAt.getTime() > SESSION_POLICY.touchIntervalMs) await this.sessions.touch(row.id);
    return { sessionId: row.id, userId: row.userId, merchantId: row.merchantId, email: row.email, token };
  }

  csrfTokenOf(session: SessionContext): string {
    return csrfTokenFor(session.token);
  }

  /** Deletes the session row: its cookie is worthless from now on, in every process. */
  async signOut(session: SessionContext): Promise<void> {
    await this.sessions.delete(session.sessionId);
  }
}
