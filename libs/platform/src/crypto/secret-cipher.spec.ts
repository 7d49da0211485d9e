import { describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { SecretCipher } from './secret-cipher.js';

describe('SecretCipher', () => {
  const cipher = new SecretCipher(randomBytes(32));
  const secret = 'whsec_' + randomBytes(32).toString('base64');

  it('round-trips a secret and never stores it in clear', () => {
    const sealed = cipher.encrypt(secret, 'webhook-1');
    expect(sealed.includes(Buffer.from(secret))).toBe(false);
    expect(cipher.decrypt(sealed, 'webhook-1')).toBe(secret);
  });

  it('uses a fresh IV each time', () => {
    expect(cipher.encrypt(secret, 'w').equals(cipher.encrypt(secret, 'w'))).toBe(false);
  });

  it('refuses a ciphertext moved to another webhook, tampered with, or read with another key', () => {
    const sealed = cipher.encrypt(secret, 'webhook-1');
    expect(() => cipher.decrypt(sealed, 'webhook-2')).toThrow();
    const tampered = Buffer.from(sealed);
    tampered[tampered.length - 1] ^= 1;
    expect(() => cipher.decrypt(tampered, 'webhook-1')).toThrow();
    expect(() => new SecretCipher(randomBytes(32)).decrypt(sealed, 'webhook-1')).toThrow();
    expect(() => cipher.decrypt(Buffer.from([9, 1, 2]), 'webhook-1')).toThrow('known version');
  });

  it('requires a 32-byte key', () => {
    expect(() => new SecretCipher(randomBytes(16))).toThrow('32-byte');
  });
});
