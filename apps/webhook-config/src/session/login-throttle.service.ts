import { Injectable } from '@nestjs/common';
import { LoginThrottleRepository, type ThrottleKey } from './login-throttle.repository.js';
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
 * Limits failed sign-ins (see LOGIN_LIMITS) per e-mail and client address, per client address, and per e-mail from
 * addresses that have not signed in to it before, in PostgreSQL so every webhook-config process shares the count.
 * An attempt is recorded *before* the password is checked and counted with every attempt recorded before it (one
 * at a time per key), so concurrent attempts cannot slip past a limit and the first ones up to it are always
 * checked. A refused attempt is removed again (it checked nothing), a successful one too, together with the
 * e-mail's failures from that address and its shared ones; the address becomes known for the e-mail.
 *
 * An unknown e-mail goes the same way as a known one from an address it never signed in from: the answers do not
 * tell them apart.
 */
@Injectable()
export class LoginThrottleService {
  private readonly limits: LoginLimits = LOGIN_LIMITS;

  constructor(private readonly repository: LoginThrottleRepository) {}

  async admit(email: string, address: string): Promise<AdmittedAttempt | RefusedAttempt> {
    const limits = this.limits;
    const pairKey = `pair:${email} ${address}`;
    const emailKey = `email:${email}`;
    const budgets: Array<ThrottleKey & { max: number }> = [
      { key: pairKey, windowMs: limits.windowMs, max: limits.maxFailuresPerEmailAndAddress },
      { key: `addr:${address}`, windowMs: limits.windowMs, max: limits.maxFailuresPerAddress },
    ];
    if (!(await this.repository.isKnownAddress(email, address, limits.knownAddressMs))) {
      budgets.push({ key: emailKey, windowMs: limits.emailWindowMs, max: limits.maxFailuresPerEmail });
    }
    const { ids, counts } = await this.repository.recordAndCount(budgets);
    const blockedUntil = budgets.flatMap(({ key, windowMs, max }) => {
      const found = counts.get(key);
      return found && found.count > max ? [found.oldest.getTime() + windowMs] : [];
    });

    if (blockedUntil.length > 0) {
      await this.repository.deleteIds(ids);
      const retryAfterMs = Math.max(...blockedUntil) - Date.now();
      return { admitted: false, retryAfterSeconds: Math.max(1, Math.ceil(retryAfterMs / 1000)) };
    }
    return {
      admitted: true,
      succeeded: async () => {
        await this.repository.deleteIds(ids);
        await this.repository.deleteKeys([pairKey, emailKey]);
        await this.repository.rememberAddress(email, address, limits.knownAddressMs);
      },
      failed: () => this.repository.deleteOlderThan(limits.windowMs),
    };
  }
}
