import { describe, expect, it } from '@jest/globals';
import { PasswordHasher } from './password.hasher.js';

describe('PasswordHasher', () => {
  const hasher = new PasswordHasher({ N: 2 ** 10, r: 8, p: 1 });

  it('stores the parameters and a random salt with the hash, never the password', async () => {
    const first = await hasher.hash('correct horse battery');
    const second = await hasher.hash('correct horse battery');
    expect(first).toMatch(/^scrypt\$1024\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    expect(first).not.toEqual(second);
    expect(first).not.toContain('correct horse');
  });

  it('verifies the right password and rejects a wrong one', async () => {
    const stored = await hasher.hash('correct horse battery');
    await expect(hasher.verify('correct horse battery', stored)).resolves.toBe(true);
    await expect(hasher.verify('correct horse batterY', stored)).resolves.toBe(false);
  });

  it('verifies with the parameters stored in the hash, so parameters can be raised later', async () => {
    const stored = await hasher.hash('a long passphrase');
    const stronger = new PasswordHasher({ N: 2 ** 11, r: 8, p: 2 });
    await expect(stronger.verify('a long passphrase', stored)).resolves.toBe(true);
  });

  it('treats Unicode normal forms of the same password alike', async () => {
    const stored = await hasher.hash('Zürich-Paßwort');
    await expect(hasher.verify('Zu\u0308rich-Paßwort', stored)).resolves.toBe(true);
  });

  it('answers false for a malformed stored hash instead of throwing', async () => {
    await expect(hasher.verify('x', 'not-a-hash')).resolves.toBe(false);
    await expect(hasher.verify('x', 'scrypt$a$b$c$d$e')).resolves.toBe(false);
    await expect(hasher.verify('x', 'bcrypt$1$2$3$AAAA$AAAA')).resolves.toBe(false);
  });
});
