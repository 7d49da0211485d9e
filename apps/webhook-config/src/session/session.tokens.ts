import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Session and CSRF tokens. The session token (32 random bytes, base64url) lives only in the HttpOnly cookie;
 * the database keeps its SHA-256. The CSRF token is derived from it (HMAC), so it needs no storage, changes with
 * every sign-in, and cannot be computed by anyone who cannot read the cookie.
 */
export const newSessionToken = (): string => randomBytes(32).toString('base64url');

export const hashSessionToken = (token: string): Buffer => createHash('sha256').update(token, 'utf8').digest();

export const csrfTokenFor = (sessionToken: string): string =>
  createHmac('sha256', Buffer.from(sessionToken, 'utf8')).update('webhook-config csrf v1').digest('base64url');

/** Constant-time check of a submitted CSRF token. */
export function isValidCsrfToken(sessionToken: string, submitted: string | undefined): boolean {
  if (!submitted) return false;
  const expected = Buffer.from(csrfTokenFor(sessionToken), 'utf8');
  const given = Buffer.from(submitted, 'utf8');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** A plausible session token (anything else is not looked up). */
export const looksLikeSessionToken = (value: string | undefined): value is string =>
  !!value && /^[A-Za-z0-9_-]{43}$/.test(value);
