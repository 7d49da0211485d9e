import { describe, expect, it } from '@jest/globals';
import { apiKeyDisplayPrefix, generateApiKey, hashApiKey, looksLikeApiKey } from './api-key.js';

describe('API keys', () => {
  it('are pk_ + base64url of 32 random bytes, all different', () => {
    const keys = Array.from({ length: 100 }, generateApiKey);
    for (const key of keys) {
      expect(key).toMatch(/^pk_[A-Za-z0-9_-]{43}$/);
      expect(looksLikeApiKey(key)).toBe(true);
    }
    expect(new Set(keys).size).toBe(100);
  });

  it('are stored as a 32-byte SHA-256 and a short prefix that does not reveal the key', () => {
    const key = generateApiKey();
    expect(hashApiKey(key)).toHaveLength(32);
    expect(hashApiKey(key).equals(hashApiKey(key))).toBe(true);
    expect(apiKeyDisplayPrefix(key)).toHaveLength(9);
    expect(key.startsWith(apiKeyDisplayPrefix(key))).toBe(true);
  });

  it('rejects things that cannot be keys before any lookup', () => {
    for (const bad of ['', 'pk_', 'sk_' + 'a'.repeat(43), 'pk_' + 'a'.repeat(42), 'pk_' + 'a'.repeat(42) + '!']) {
      expect(looksLikeApiKey(bad)).toBe(false);
    }
  });
});
