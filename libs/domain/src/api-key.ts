import { createHash, randomBytes } from 'node:crypto';

/** API keys: `pk_` + base64url of 32 random bytes. Shown once; only the SHA-256 hash and a short prefix are kept. */
export const API_KEY_PREFIX = 'pk_';
const API_KEY_LENGTH = API_KEY_PREFIX.length + 43;

export function generateApiKey(): string {
  return API_KEY_PREFIX + randomBytes(32).toString('base64url');
}

export function hashApiKey(apiKey: string): Buffer {
  return createHash('sha256').update(apiKey, 'utf8').digest();
}

/** The readable part kept beside the hash, to recognise a key in a list without revealing it (`pk_AbCd…`). */
export function apiKeyDisplayPrefix(apiKey: string): string {
  return apiKey.slice(0, API_KEY_PREFIX.length + 6);
}

/** Whether `candidate` can be an API key at all (cheap check before hashing and looking it up). */
export function looksLikeApiKey(candidate: string): boolean {
  return (
    candidate.length === API_KEY_LENGTH && candidate.startsWith(API_KEY_PREFIX) && /^[A-Za-z0-9_-]+$/.test(candidate)
  );
}
