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

/**
 * Sign-in limits (docs/webhook-config.md, "Sign-in limits"). Failed attempts count against three budgets:
 * - per e-mail and client address: a few wrong passwords lock that address out for that e-mail, not the e-mail;
 * - per client address, any e-mail: one address spraying many e-mails;
 * - per e-mail, from addresses that have not signed in to it before: guessing from many addresses stays a handful of
 *   checks per minute in total. An address that has signed in to the e-mail (a known address) does not draw on it,
 *   so guessing from elsewhere cannot keep the owner out.
 */
export const LOGIN_LIMITS = {
  /** Failed sign-ins per e-mail and client address in `windowMs`. */
  maxFailuresPerEmailAndAddress: 5,
  /** Failed sign-ins per client address in `windowMs` (any e-mail). */
  maxFailuresPerAddress: 20,
  windowMs: 15 * 60 * 1000,
  /** Failed sign-ins per e-mail from addresses not known for it, in `emailWindowMs`. */
  maxFailuresPerEmail: 5,
  emailWindowMs: 60 * 1000,
  /** An address stays known for an e-mail this long after its last successful sign-in there. */
  knownAddressMs: 90 * 24 * 60 * 60 * 1000,
} as const;
