/** How long a sign-in lasts, and how sign-in attempts are limited. Documented in docs/webhook-config.md. */
export const SESSION_POLICY = {
  /** A session ends this long after sign-in, however active. */
  absoluteLifetimeMs: 12 * 60 * 60 * 1000,
  /** ... or after this long without a request. */
  idleTimeoutMs: 2 * 60 * 60 * 1000,
  /** last_seen_at is written at most this often per session. */
  touchIntervalMs: 60 * 1000,
  cookieName: 'wc_session',
} as const;

export const LOGIN_LIMITS = {
  windowMs: 15 * 60 * 1000,
  /** Failed sign-ins per e-mail address in the window (whether or not the account exists). */
  maxFailuresPerEmail: 5,
  /** Failed sign-ins per client address in the window (any e-mail). */
  maxFailuresPerAddress: 20,
} as const;
