import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { phpHmacHex, phpStandardWebhookMatches } from '../test/php.js';
import {
  DEFAULT_WEBHOOK_TOLERANCE_SECONDS,
  WebhookSecretError,
  WebhookVerificationError,
  buildWebhookHeaders,
  decodeWebhookSecret,
  generateWebhookSecret,
  isValidStandardWebhook,
  isWebhookSecret,
  signLegacyHex,
  signStandardWebhook,
  toWebhookTimestamp,
  verifyLegacyHex,
  verifyStandardWebhook,
  type VerifyStandardWebhookInput,
  type WebhookMimeType,
} from './index.js';

const secretA = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const secretB = generateWebhookSecret();
const body = '{"transaction":{"uuid":"0b8a6a3e","amount":1990,"city":"Zürich"}}';
const webhookId = 'msg_2QkWvUGbqXzjZ0yQ';
const timestamp = 1_795_000_000;
const at = (seconds: number): Date => new Date(seconds * 1000);

/** Verify with the independent `standardwebhooks` package. */
function standardVerify(
  secret: string,
  headers: Record<string, string>,
  payload: string | Buffer,
  now: number,
): boolean {
  const realNow = Date.now;
  Date.now = () => now * 1000;
  try {
    new Webhook(secret).verify(payload, headers, { jsonParse: false });
    return true;
  } catch {
    return false;
  } finally {
    Date.now = realNow;
  }
}

describe('generateWebhookSecret', () => {
  it('is whsec_ + padded base64 of exactly 32 bytes', () => {
    for (let i = 0; i < 50; i += 1) {
      const secret = generateWebhookSecret();
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
      expect(key).toHaveLength(32);
      expect(key.toString('base64')).toBe(secret.slice('whsec_'.length));
      expect(decodeWebhookSecret(secret)).toStrictEqual(key);
    }
  });

  it('is random', () => {
    const secrets = new Set(Array.from({ length: 200 }, () => generateWebhookSecret()));
    expect(secrets.size).toBe(200);
  });
});

describe('decodeWebhookSecret', () => {
  it.each([
    ['no prefix', 'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
    ['wrong prefix', 'whsk_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
    ['not base64', 'whsec_not base64 at all!!!!!!!!!!!!!!'],
    ['missing padding', `whsec_${Buffer.alloc(32, 7).toString('base64').replace('=', '')}`],
    ['too short', `whsec_${Buffer.alloc(16, 7).toString('base64')}`],
    ['too long', `whsec_${Buffer.alloc(65, 7).toString('base64')}`],
    ['empty', 'whsec_'],
  ])('rejects a secret with %s without revealing it', (_label, secret) => {
    expect(() => decodeWebhookSecret(secret)).toThrow(WebhookSecretError);
    try {
      decodeWebhookSecret(secret);
    } catch (error) {
      expect((error as Error).message).not.toContain(secret.slice(6, 16) || 'whsec_');
      expect((error as Error).name).toBe('WebhookSecretError');
    }
    expect(isWebhookSecret(secret)).toBe(false);
  });

  it('accepts 24 to 64 byte keys', () => {
    expect(decodeWebhookSecret(secretA)).toHaveLength(24);
    expect(decodeWebhookSecret(`whsec_${Buffer.alloc(64, 1).toString('base64')}`)).toHaveLength(64);
    expect(isWebhookSecret(secretB)).toBe(true);
    expect(isWebhookSecret(42)).toBe(false);
  });
});

describe('signStandardWebhook', () => {
  it('is verified by the standardwebhooks package', () => {
    const signature = signStandardWebhook({ webhookId, timestamp, body, secrets: [secretB] });
    expect(signature).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    const headers = { 'webhook-id': webhookId, 'webhook-timestamp': String(timestamp), 'webhook-signature': signature };
    expect(standardVerify(secretB, headers, body, timestamp)).toBe(true);
  });

  it('matches the signature the standardwebhooks package computes', () => {
    const theirs = new Webhook(secretA).sign(webhookId, at(timestamp), body);
    expect(signStandardWebhook({ webhookId, timestamp: at(timestamp), body, secrets: secretA })).toBe(theirs);
  });

  it('signs one signature per secret during a rotation, each verifiable on its own, newest first', () => {
    const signature = signStandardWebhook({ webhookId, timestamp, body, secrets: [secretB, secretA] });
    const parts = signature.split(' ');
    expect(parts).toHaveLength(2);
    expect(parts[0]).toBe(signStandardWebhook({ webhookId, timestamp, body, secrets: [secretB] }));
    expect(parts[1]).toBe(signStandardWebhook({ webhookId, timestamp, body, secrets: [secretA] }));
    const headers = { 'webhook-id': webhookId, 'webhook-timestamp': String(timestamp), 'webhook-signature': signature };
    expect(standardVerify(secretA, headers, body, timestamp)).toBe(true);
    expect(standardVerify(secretB, headers, body, timestamp)).toBe(true);
    expect(standardVerify(generateWebhookSecret(), headers, body, timestamp)).toBe(false);
  });

  it('fails the independent verifier when the body, id or timestamp is tampered with', () => {
    const signature = signStandardWebhook({ webhookId, timestamp, body, secrets: [secretA] });
    const headers = { 'webhook-id': webhookId, 'webhook-timestamp': String(timestamp), 'webhook-signature': signature };
    expect(standardVerify(secretA, headers, body.replace('1990', '1991'), timestamp)).toBe(false);
    expect(standardVerify(secretA, { ...headers, 'webhook-id': 'msg_other' }, body, timestamp)).toBe(false);
    expect(standardVerify(secretA, { ...headers, 'webhook-timestamp': String(timestamp + 1) }, body, timestamp)).toBe(
      false,
    );
  });

  it('signs exactly the bytes given: a Buffer, a Uint8Array and the equal string agree, other bytes do not', () => {
    const bytes = Buffer.from(body, 'utf8');
    const fromString = signStandardWebhook({ webhookId, timestamp, body, secrets: [secretA] });
    expect(signStandardWebhook({ webhookId, timestamp, body: bytes, secrets: [secretA] })).toBe(fromString);
    expect(signStandardWebhook({ webhookId, timestamp, body: new Uint8Array(bytes), secrets: [secretA] })).toBe(
      fromString,
    );
    const latin1 = Buffer.from(body, 'latin1');
    expect(signStandardWebhook({ webhookId, timestamp, body: latin1, secrets: [secretA] })).not.toBe(fromString);
    // (The standardwebhooks package decodes a Buffer as UTF-8, so raw non-UTF-8 bytes are checked against PHP below.)
  });

  it('signs a PHP-Post body the independent verifier accepts', () => {
    const form = 'transaction[3dsecure][eci]=05&transaction[city]=Z%C3%BCrich&transaction[referenceId]=';
    const signature = signStandardWebhook({ webhookId, timestamp, body: form, secrets: [secretA] });
    const headers = { 'webhook-id': webhookId, 'webhook-timestamp': String(timestamp), 'webhook-signature': signature };
    expect(standardVerify(secretA, headers, form, timestamp)).toBe(true);
    expect(standardVerify(secretA, headers, form.replace('05', '07'), timestamp)).toBe(false);
  });

  it('agrees with a PHP implementation for arbitrary bodies, ids and secrets (property)', async () => {
    const cases = fc.sample(
      fc.record({
        id: fc.stringMatching(/^[\x21-\x7e]{1,40}$/),
        timestamp: fc.integer({ min: 0, max: 4_000_000_000 }),
        body: fc.oneof(fc.string({ unit: 'binary', maxLength: 200 }), fc.uint8Array({ maxLength: 200 })),
        secrets: fc.array(
          fc.constant(null).map(() => generateWebhookSecret()),
          { minLength: 1, maxLength: 3 },
        ),
      }),
      { numRuns: 100, seed: 42 },
    );
    const checks = cases.flatMap(({ id, timestamp: ts, body: payload, secrets }) => {
      const signature = signStandardWebhook({ webhookId: id, timestamp: ts, body: payload, secrets });
      return secrets.map((secret) => ({ id, timestamp: String(ts), body: payload, secret, signature }));
    });
    const wrongSecret = checks.slice(0, 10).map((c) => ({ ...c, secret: generateWebhookSecret() }));
    expect(await phpStandardWebhookMatches(checks)).toStrictEqual(checks.map(() => true));
    expect(await phpStandardWebhookMatches(wrongSecret)).toStrictEqual(wrongSecret.map(() => false));
  });

  it('rejects malformed input without revealing secrets', () => {
    expect(() => signStandardWebhook({ webhookId, timestamp, body, secrets: [] })).toThrow(
      new WebhookSecretError('At least one webhook secret is required'),
    );
    expect(() => signStandardWebhook({ webhookId, timestamp, body, secrets: [secretA, 'whsec_short'] })).toThrow(
      WebhookSecretError,
    );
    expect(() => signStandardWebhook({ webhookId: '', timestamp, body, secrets: [secretA] })).toThrow(TypeError);
    expect(() => signStandardWebhook({ webhookId: 'a b', timestamp, body, secrets: [secretA] })).toThrow(
      'webhookId must be 1–256 visible ASCII characters',
    );
    expect(() => signStandardWebhook({ webhookId, timestamp: 1.5, body, secrets: [secretA] })).toThrow(RangeError);
    expect(() => signStandardWebhook({ webhookId, timestamp: -1, body, secrets: [secretA] })).toThrow(RangeError);
    expect(() => signStandardWebhook({ webhookId, timestamp: new Date(Number.NaN), body, secrets: [secretA] })).toThrow(
      RangeError,
    );
  });
});

describe('toWebhookTimestamp', () => {
  it('renders Unix seconds, rounding a Date down', () => {
    expect(toWebhookTimestamp(1_795_000_000)).toBe('1795000000');
    expect(toWebhookTimestamp(new Date(1_795_000_000_999))).toBe('1795000000');
    expect(toWebhookTimestamp(0)).toBe('0');
  });
});

describe('verifyStandardWebhook', () => {
  const signature = signStandardWebhook({ webhookId, timestamp, body, secrets: [secretA] });
  const headers = { 'webhook-id': webhookId, 'webhook-timestamp': String(timestamp), 'webhook-signature': signature };
  const base: VerifyStandardWebhookInput = { body, secret: secretA, headers, now: at(timestamp) };

  const failure = (input: VerifyStandardWebhookInput): string | undefined => {
    try {
      verifyStandardWebhook(input);
      return undefined;
    } catch (error) {
      expect(error).toBeInstanceOf(WebhookVerificationError);
      expect((error as Error).name).toBe('WebhookVerificationError');
      expect((error as Error).message).not.toContain(secretA.slice(6));
      expect((error as Error).message).not.toContain(signature.slice(3));
      return (error as WebhookVerificationError).code;
    }
  };

  it('accepts its own and the standardwebhooks package signatures', () => {
    expect(failure(base)).toBeUndefined();
    const theirs = new Webhook(secretA).sign(webhookId, at(timestamp), body);
    expect(failure({ ...base, headers: { ...headers, 'webhook-signature': theirs } })).toBeUndefined();
    expect(isValidStandardWebhook(base)).toBe(true);
  });

  it('accepts 299 s and exactly 300 s of clock difference either way, rejects 301 s', () => {
    expect(DEFAULT_WEBHOOK_TOLERANCE_SECONDS).toBe(300);
    expect(failure({ ...base, now: at(timestamp + 299) })).toBeUndefined();
    expect(failure({ ...base, now: at(timestamp + 300) })).toBeUndefined();
    expect(failure({ ...base, now: at(timestamp + 301) })).toBe('timestamp-too-old');
    expect(failure({ ...base, now: at(timestamp - 299) })).toBeUndefined();
    expect(failure({ ...base, now: at(timestamp - 300) })).toBeUndefined();
    expect(failure({ ...base, now: at(timestamp - 301) })).toBe('timestamp-too-new');
    expect(failure({ ...base, now: at(timestamp + 30), toleranceSeconds: 29 })).toBe('timestamp-too-old');
  });

  it('uses the current time by default', () => {
    const now = Math.floor(Date.now() / 1000);
    const fresh = signStandardWebhook({ webhookId, timestamp: now, body, secrets: [secretA] });
    const freshHeaders = { 'webhook-id': webhookId, 'webhook-timestamp': String(now), 'webhook-signature': fresh };
    expect(failure({ body, secret: secretA, headers: freshHeaders })).toBeUndefined();
    expect(failure({ body, secret: secretA, headers })).toBe('timestamp-too-old');
  });

  it('rejects a tampered body, id, timestamp or signature, and a wrong secret', () => {
    expect(failure({ ...base, body: `${body} ` })).toBe('invalid-signature');
    expect(failure({ ...base, headers: { ...headers, 'webhook-id': 'msg_other' } })).toBe('invalid-signature');
    expect(failure({ ...base, headers: { ...headers, 'webhook-timestamp': String(timestamp - 1) } })).toBe(
      'invalid-signature',
    );
    expect(failure({ ...base, secret: secretB })).toBe('invalid-signature');
    const flipped = `v1,${signature[3] === 'A' ? 'B' : 'A'}${signature.slice(4)}`;
    expect(failure({ ...base, headers: { ...headers, 'webhook-signature': flipped } })).toBe('invalid-signature');
    expect(failure({ ...base, headers: { ...headers, 'webhook-signature': `v2,${signature.slice(3)}` } })).toBe(
      'invalid-signature',
    );
    expect(failure({ ...base, headers: { ...headers, 'webhook-signature': signature.slice(0, -2) } })).toBe(
      'invalid-signature',
    );
    expect(isValidStandardWebhook({ ...base, secret: secretB })).toBe(false);
  });

  it('accepts any matching signature of a rotation header and any accepted secret', () => {
    const rotation = signStandardWebhook({ webhookId, timestamp, body, secrets: [secretB, secretA] });
    const rotated = { ...headers, 'webhook-signature': `v1a,xyz ${rotation}` };
    expect(failure({ ...base, headers: rotated })).toBeUndefined();
    expect(failure({ ...base, headers: rotated, secret: secretB })).toBeUndefined();
    expect(failure({ ...base, secret: [generateWebhookSecret(), secretA] })).toBeUndefined();
    expect(failure({ ...base, secret: [generateWebhookSecret()] })).toBe('invalid-signature');
  });

  it('reads headers in any letter case, as arrays, from a fetch Headers object or from explicit fields', () => {
    const upper = { 'Webhook-Id': webhookId, 'WEBHOOK-TIMESTAMP': String(timestamp), 'Webhook-Signature': [signature] };
    expect(failure({ ...base, headers: upper })).toBeUndefined();
    expect(failure({ ...base, headers: new Headers(headers) })).toBeUndefined();
    expect(failure({ body, secret: secretA, now: at(timestamp), webhookId, timestamp, signature })).toBeUndefined();
    expect(failure({ ...base, headers: { ...headers, 'webhook-signature': 'v1,wrong' }, signature })).toBeUndefined();
  });

  it('rejects missing headers and malformed timestamps', () => {
    expect(failure({ body, secret: secretA })).toBe('missing-header');
    expect(failure({ ...base, headers: { ...headers, 'webhook-id': '' } })).toBe('missing-header');
    expect(failure({ ...base, headers: { 'webhook-id': webhookId, 'webhook-signature': signature } })).toBe(
      'missing-header',
    );
    expect(failure({ ...base, headers: { ...headers, 'webhook-timestamp': '' } })).toBe('missing-header');
    expect(failure({ ...base, headers: new Headers({ 'webhook-id': webhookId }) })).toBe('missing-header');
    expect(failure({ ...base, headers: { ...headers, 'webhook-signature': undefined } })).toBe('missing-header');
    for (const bad of ['1795000000.0', '-1', ' 1795000000', '1e9', 'abc', '1'.repeat(16)]) {
      expect(failure({ ...base, headers: { ...headers, 'webhook-timestamp': bad } })).toBe('invalid-timestamp');
    }
    expect(failure({ ...base, headers: undefined, webhookId, signature, timestamp })).toBeUndefined();
  });

  it('throws WebhookSecretError (not a verification failure) for a malformed secret', () => {
    expect(() => verifyStandardWebhook({ ...base, secret: 'not-a-secret' })).toThrow(WebhookSecretError);
    expect(() => isValidStandardWebhook({ ...base, secret: 'not-a-secret' })).toThrow(WebhookSecretError);
    expect(() => verifyStandardWebhook({ ...base, secret: [] })).toThrow(WebhookSecretError);
  });
});

describe('signLegacyHex (x-webhook-signature)', () => {
  it('equals PHP hash_hmac("sha256", $body, $secret) with the whole secret string as key', async () => {
    const cases = [
      { body, secret: secretA },
      { body: '', secret: secretB },
      { body: 'transaction[3dsecure][eci]=05&transaction[city]=Z%C3%BCrich', secret: secretB },
      { body: Buffer.from([0, 255, 128, 10, 13]), secret: secretA },
      ...fc.sample(
        fc.record({
          body: fc.string({ unit: 'binary', maxLength: 300 }),
          secret: fc.constant(null).map(generateWebhookSecret),
        }),
        { numRuns: 50, seed: 7 },
      ),
    ];
    const ours = cases.map(({ body: payload, secret }) => signLegacyHex(payload, secret));
    expect(ours.every((hex) => /^[0-9a-f]{64}$/.test(hex))).toBe(true);
    expect(ours).toStrictEqual(await phpHmacHex(cases));
  });

  it('keys with the secret string, not the decoded key', () => {
    expect(signLegacyHex(body, secretA)).not.toBe(
      Buffer.from(signStandardWebhook({ webhookId, timestamp, body, secrets: [secretA] }).slice(3), 'base64').toString(
        'hex',
      ),
    );
  });

  it('verifies in either letter case and rejects other bodies, secrets and junk', () => {
    const hex = signLegacyHex(body, secretA);
    expect(verifyLegacyHex(body, secretA, hex)).toBe(true);
    expect(verifyLegacyHex(Buffer.from(body), secretA, hex.toUpperCase())).toBe(true);
    expect(verifyLegacyHex(`${body}x`, secretA, hex)).toBe(false);
    expect(verifyLegacyHex(body, secretB, hex)).toBe(false);
    expect(verifyLegacyHex(body, secretA, hex.slice(1))).toBe(false);
    expect(verifyLegacyHex(body, secretA, undefined as unknown as string)).toBe(false);
  });

  it('requires a secret', () => {
    expect(() => signLegacyHex(body, '')).toThrow(new WebhookSecretError('A webhook secret is required'));
  });
});

describe('buildWebhookHeaders', () => {
  it('builds every header of CONTRACT §5, x-webhook-signature with the first (current) secret', () => {
    const headers = buildWebhookHeaders({
      webhookId,
      timestamp,
      body,
      secrets: [secretB, secretA],
      contentType: 'json',
    });
    expect(headers).toStrictEqual({
      'content-type': 'application/json',
      'webhook-id': webhookId,
      'webhook-timestamp': '1795000000',
      'webhook-signature': signStandardWebhook({ webhookId, timestamp, body, secrets: [secretB, secretA] }),
      'x-webhook-signature': signLegacyHex(body, secretB),
    });
    expect(standardVerify(secretA, headers, body, timestamp)).toBe(true);
    expect(standardVerify(secretB, headers, body, timestamp)).toBe(true);
    expect(verifyLegacyHex(body, secretB, headers['x-webhook-signature'])).toBe(true);
  });

  it.each([
    ['php-post', 'application/x-www-form-urlencoded'],
    ['json', 'application/json'],
    ['application/json', 'application/json'],
    ['application/x-www-form-urlencoded', 'application/x-www-form-urlencoded'],
  ] as const)('maps content type %s to %s', (contentType, header) => {
    expect(buildWebhookHeaders({ webhookId, timestamp, body, secrets: secretA, contentType })['content-type']).toBe(
      header,
    );
  });

  it('rejects an unknown content type and an empty secret list', () => {
    expect(() =>
      buildWebhookHeaders({
        webhookId,
        timestamp,
        body,
        secrets: [secretA],
        contentType: 'text/plain' as WebhookMimeType,
      }),
    ).toThrow(new RangeError('Unknown webhook content type: text/plain'));
    expect(() => buildWebhookHeaders({ webhookId, timestamp, body, secrets: [], contentType: 'json' })).toThrow(
      WebhookSecretError,
    );
  });
});
