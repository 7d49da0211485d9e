import { Injectable } from '@nestjs/common';
import { LoginThrottleRepository } from './login-throttle.repository.js';
import { LOGIN_LIMITS } from './session.policy.js';

export type LoginLimits = typeof LOGIN_LIMITS;

/** An attempt the throttle let through: settle it once the credentials are checked. */
export interface AdmittedAttempt {
  admitted: true;
  succeeded(): Promise<void>;
  failed(): Promise<void>;
}

export interface RefusedAttempt {
  admitted: false;
  retryAfterSeconds: number;
}

/**
 * Limits sign-in attempts per e-mail address and per client address, in PostgreSQL so every webhook-config
 * process shares the count. An attempt is recorded *before* the password is checked and counted with every
 * attempt recorded before it (one at a time per key), so concurrent attempts cannot slip past the limit and the
 * first ones up to it are always checked. A refused attempt is removed
 * again (it checked nothing), a successful one too, together with earlier failures for that e-mail.
 */
@Injectable()
export class LoginThrottleService {
  private readonly limits: LoginLimits = LOGIN_LIMITS;

  constructor(private readonly repository: LoginThrottleRepository) {}

  async admit(email: string, address: string): Promise<AdmittedAttempt | RefusedAttempt> {
    const emailKey = `email:${email}`;
    const addressKey = `addr:${address}`;
    const { ids, counts } = await this.repository.recordAndCount([emailKey, addressKey], this.limits.windowMs);
    const blockedUntil = [
      { found: counts.get(emailKey), max: this.limits.maxFailuresPerEmail },
      { found: counts.get(addressKey), max: this.limits.maxFailuresPerAddress },
    ].flatMap(({ found, max }) => (found && found.count > max ? [found.oldest.getTime() + this.limits.windowMs] : []));

    if (blockedUntil.length > 0) {
      await this.repository.deleteIds(ids);
      const retryAfterMs = Math.max(...blockedUntil) - Date.now();
      return { admitted: false, retryAfterSeconds: Math.max(1, Math.ceil(retryAfterMs / 1000)) };
    }
    return {
      admitted: true,
      succeeded: async () => {
        await this.repository.deleteIds(ids);
        await this.repository.deleteKey(emailKey);
      },
      failed: () => this.repository.deleteOlderThan(this.limits.windowMs),
    };
  }
}
