import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * scrypt parameters: N=2^15, r=8, p=3 is one of OWASP's equivalent recommendations (32 MiB per hash). They are
 * stored with every hash, so raising them later only affects new hashes and old ones keep verifying.
 */
export interface ScryptParameters {
  N: number;
  r: number;
  p: number;
}

export const DEFAULT_SCRYPT_PARAMETERS: ScryptParameters = { N: 2 ** 15, r: 8, p: 3 };

const SALT_BYTES = 16;
const KEY_BYTES = 32;
const PREFIX = 'scrypt';

function derive(password: string, salt: Buffer, params: ScryptParameters): Promise<Buffer> {
  const options: ScryptOptions = { N: params.N, r: params.r, p: params.p, maxmem: 256 * params.N * params.r };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, KEY_BYTES, options, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

/**
 * Salted scrypt password hashes in the self-describing form `scrypt$N$r$p$salt$key` (base64 salt and key).
 * Verification is constant-time; a malformed stored hash verifies as false rather than throwing.
 */
export class PasswordHasher {
  constructor(private readonly params: ScryptParameters = DEFAULT_SCRYPT_PARAMETERS) {}

  async hash(password: string): Promise<string> {
    const salt = randomBytes(SALT_BYTES);
    const key = await derive(password, salt, this.params);
    const { N, r, p } = this.params;
    return [PREFIX, N, r, p, salt.toString('base64'), key.toString('base64')].join('$');
  }

  async verify(password: string, stored: string): Promise<boolean> {
    const parsed = parse(stored);
    if (!parsed) return false;
    const key = await derive(password, parsed.salt, parsed.params);
    return key.length === parsed.key.length && timingSafeEqual(key, parsed.key);
  }

  /**
   * Spends the same time as verifying a real hash, for sign-ins with an unknown e-mail: the answer time must
   * not tell an attacker whether an account exists.
   */
  async burn(password: string): Promise<void> {
    await derive(password, randomBytes(SALT_BYTES), this.params);
  }
}

function parse(stored: string): { params: ScryptParameters; salt: Buffer; key: Buffer } | undefined {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== PREFIX) return undefined;
  const [N, r, p] = parts.slice(1, 4).map(Number);
  if (![N, r, p].every((n) => Number.isSafeInteger(n) && n > 0)) return undefined;
  const salt = Buffer.from(parts[4], 'base64');
  const key = Buffer.from(parts[5], 'base64');
  if (salt.length === 0 || key.length === 0) return undefined;
  return { params: { N, r, p }, salt, key };
}
