import { describe, expect, it } from '@jest/globals';
import {
  csrfTokenFor,
  hashSessionToken,
  isValidCsrfToken,
  looksLikeSessionToken,
  newSessionToken,
} from './session.tokens.js';

describe('session tokens', () => {
  it('are 256-bit random base64url strings, unique per sign-in', () => {
    const tokens = new Set(Array.from({ length: 100 }, newSessionToken));
    expect(tokens.size).toBe(100);
    for (const token of tokens) expect(looksLikeSessionToken(token)).toBe(true);
  });

  it('are stored as a SHA-256 hash that does not contain the token', () => {
    const token = newSessionToken();
    const hash = hashSessionToken(token);
    expect(hash).toHaveLength(32);
    expect(hash.toString('base64url')).not.toEqual(token);
  });

  it('derive a CSRF token that only matches its own session', () => {
    const a = newSessionToken();
    const b = newSessionToken();
    expect(isValidCsrfToken(a, csrfTokenFor(a))).toBe(true);
    expect(isValidCsrfToken(a, csrfTokenFor(b))).toBe(false);
    expect(isValidCsrfToken(a, undefined)).toBe(false);
    expect(isValidCsrfToken(a, '')).toBe(false);
    expect(isValidCsrfToken(a, csrfTokenFor(a).slice(1))).toBe(false);
  });

  it('rejects cookie values that cannot be a session token without a lookup', () => {
    expect(looksLikeSessionToken(undefined)).toBe(false);
    expect(looksLikeSessionToken("' OR 1=1 --")).toBe(false);
    expect(looksLikeSessionToken('a'.repeat(44))).toBe(false);
  });
});
