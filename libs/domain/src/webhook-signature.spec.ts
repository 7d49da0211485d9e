import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { phpHmacHex, phpStandardWebhookMatches } from '../test/php.js';
import {
  WebhookSecretError,
  buildWebhookHeaders,
  generateWebhookSecret,
  type BuildWebhookHeadersInput,
  type WebhookMimeType,
} from './index.js';

/*
 * Only the sending side is ours. Every signature is checked by an independent receiver: the `standardwebhooks`
 * package (Standard Webhooks), node:crypto's HMAC (the hex header) and PHP's hash_hmac.
 */
const secretA = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const secretB = generateWebhookSecret();
const body = '{"transaction":{"uuid":"0b8a6a3e","amount":1990,"city":"Zürich"}}';
const webhookId = 'msg_2QkWvUGbqXzjZ0yQ';
const timestamp = 1_795_000_000;
const at = (seconds: number): Date => new Date(seconds * 1000);

/** The headers of a JSON delivery of `body` signed with `secretA`, with `overrides`. */
function headersOf(overrides: Partial<BuildWebhookHeadersInput> = {}) {
  return buildWebhookHeaders({ webhookId, timestamp, body, secrets: [secretA], contentType: 'json', ...overrides });
}

/** Verify with the independent `standardwebhooks` package, its clock set to `now` (Unix seconds). */
function standardVerify(
  secret: string,
  headers: Record<string, string>,
  payload: string | Buffer,
  now: number = timestamp,
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

/** The hex scheme as a receiver computes it with node:crypto: HMAC-SHA256 of the body, keyed with the secret string. */
const hexHmac = (payload: string | Uint8Array, secret: string): string =>
  createHmac('sha256', secret).update(payload).digest('hex');

describe('generateWebhookSecret', () => {
  it('is whsec_ + padded base64 of exactly 32 bytes, and signs', () => {
    for (let i = 0; i < 50; i += 1) {
      const secret = generateWebhookSecret();
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
      expect(key).toHaveLength(32);
      expect(key.toString('base64')).toBe(secret.slice('whsec_'.length));
      expect(standardVerify(secret, headersOf({ secrets: secret }), body)).toBe(true);
    }
  });

  it('is random', () => {
    const secrets = new Set(Array.from({ length: 200 }, () => generateWebhookSecret()));
    expect(secrets.size).toBe(200);
  });
});

describe('webhook secrets', () => {
  it.each([
    ['no prefix', 'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
    ['wrong prefix', 'whsk_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
    ['not base64', 'whsec_not base64 at all!!!!!!!!!!!!!!'],
    ['missing padding', `whsec_${Buffer.alloc(32, 7).toString('base64').replace('=', '')}`],
    ['too short', `whsec_${Buffer.alloc(16, 7).toString('base64')}`],
    ['too long', `whsec_${Buffer.alloc(65, 7).toString('base64')}`],
    ['empty', 'whsec_'],
  ])('a secret with %s is refused without revealing it, also behind a valid one', (_label, secret) => {
    for (const secrets of [[secret], [secretA, secret]]) {
      let thrown: unknown;
      try {
        headersOf({ secrets });
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(WebhookSecretError);
      expect((thrown as Error).name).toBe('WebhookSecretError');
      expect((thrown as Error).message).not.toContain(secret.slice(6, 16) || 'whsec_');
    }
  });

  it('accepts 24 to 64 byte keys', () => {
    const longest = `whsec_${Buffer.alloc(64, 1).toString('base64')}`;
    expect(Buffer.from(secretA.slice(6), 'base64')).toHaveLength(24);
    expect(standardVerify(secretA, headersOf({ secrets: secretA }), body)).toBe(true);
    expect(standardVerify(longest, headersOf({ secrets: longest }), body)).toBe(true);
  });

  it('requires at least one secret', () => {
    expect(() => headersOf({ secrets: [] })).toThrow(new WebhookSecretError('At least one webhook secret is required'));
  });
});

describe('webhook-signature (Standard Webhooks)', () => {
  it('is verified by the standardwebhooks package', () => {
    const headers = headersOf({ secrets: [secretB] });
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(standardVerify(secretB, headers, body)).toBe(true);
  });

  it('matches the signature the standardwebhooks package computes', () => {
    const theirs = new Webhook(secretA).sign(webhookId, at(timestamp), body);
    expect(headersOf({ timestamp: at(timestamp), secrets: secretA })['webhook-signature']).toBe(theirs);
  });

  it('carries one signature per secret during a rotation, each verifiable on its own, newest first', () => {
    const headers = headersOf({ secrets: [secretB, secretA] });
    const parts = headers['webhook-signature'].split(' ');
    expect(parts).toStrictEqual([
      headersOf({ secrets: [secretB] })['webhook-signature'],
      headersOf({ secrets: [secretA] })['webhook-signature'],
    ]);
    expect(standardVerify(secretA, headers, body)).toBe(true);
    expect(standardVerify(secretB, headers, body)).toBe(true);
    expect(standardVerify(generateWebhookSecret(), headers, body)).toBe(false);
  });

  it('fails the independent verifier when the body, id or timestamp is tampered with', () => {
    const headers = headersOf();
    expect(standardVerify(secretA, headers, body.replace('1990', '1991'))).toBe(false);
    expect(standardVerify(secretA, { ...headers, 'webhook-id': 'msg_other' }, body)).toBe(false);
    expect(standardVerify(secretA, { ...headers, 'webhook-timestamp': String(timestamp + 1) }, body)).toBe(false);
  });

  it('signs exactly the bytes given: a Buffer, a Uint8Array and the equal string agree, other bytes do not', () => {
    const bytes = Buffer.from(body, 'utf8');
    const fromString = headersOf()['webhook-signature'];
    expect(headersOf({ body: bytes })['webhook-signature']).toBe(fromString);
    expect(headersOf({ body: new Uint8Array(bytes) })['webhook-signature']).toBe(fromString);
    expect(headersOf({ body: Buffer.from(body, 'latin1') })['webhook-signature']).not.toBe(fromString);
    // (The standardwebhooks package decodes a Buffer as UTF-8, so raw non-UTF-8 bytes are checked against PHP below.)
  });

  it('signs a PHP-Post body the independent verifier accepts', () => {
    const form = 'transaction[3dsecure][eci]=05&transaction[city]=Z%C3%BCrich&transaction[referenceId]=';
    const headers = headersOf({ body: form, contentType: 'php-post' });
    expect(standardVerify(secretA, headers, form)).toBe(true);
    expect(standardVerify(secretA, headers, form.replace('05', '07'))).toBe(false);
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
      const signature = headersOf({ webhookId: id, timestamp: ts, body: payload, secrets })['webhook-signature'];
      return secrets.map((secret) => ({ id, timestamp: String(ts), body: payload, secret, signature }));
    });
    const wrongSecret = checks.slice(0, 10).map((c) => ({ ...c, secret: generateWebhookSecret() }));
    expect(await phpStandardWebhookMatches(checks)).toStrictEqual(checks.map(() => true));
    expect(await phpStandardWebhookMatches(wrongSecret)).toStrictEqual(wrongSecret.map(() => false));
  });
});

describe('webhook-id and webhook-timestamp', () => {
  it('renders the timestamp as Unix seconds, rounding a Date down', () => {
    expect(headersOf({ timestamp: 1_795_000_000 })['webhook-timestamp']).toBe('1795000000');
    expect(headersOf({ timestamp: new Date(1_795_000_000_999) })['webhook-timestamp']).toBe('1795000000');
    expect(headersOf({ timestamp: 0 })['webhook-timestamp']).toBe('0');
  });

  it('rejects a malformed id or timestamp', () => {
    expect(() => headersOf({ webhookId: '' })).toThrow(TypeError);
    expect(() => headersOf({ webhookId: 'a b' })).toThrow('webhookId must be 1–256 visible ASCII characters');
    expect(() => headersOf({ webhookId: 'x'.repeat(257) })).toThrow(TypeError);
    expect(() => headersOf({ timestamp: 1.5 })).toThrow(RangeError);
    expect(() => headersOf({ timestamp: -1 })).toThrow(RangeError);
    expect(() => headersOf({ timestamp: new Date(Number.NaN) })).toThrow(RangeError);
  });
});

describe('x-webhook-signature (hex)', () => {
  it('equals PHP hash_hmac("sha256", $body, $secret) and node:crypto, with the whole secret string as key', async () => {
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
    const ours = cases.map(
      ({ body: payload, secret }) => headersOf({ body: payload, secrets: secret })['x-webhook-signature'],
    );
    expect(ours.every((hex) => /^[0-9a-f]{64}$/.test(hex))).toBe(true);
    expect(ours).toStrictEqual(cases.map(({ body: payload, secret }) => hexHmac(payload, secret)));
    expect(ours).toStrictEqual(await phpHmacHex(cases));
  });

  it('keys with the secret string, not the decoded key', () => {
    const decodedKey = Buffer.from(secretA.slice('whsec_'.length), 'base64');
    expect(headersOf()['x-webhook-signature']).not.toBe(createHmac('sha256', decodedKey).update(body).digest('hex'));
  });

  it('is made with the first (current) secret only during a rotation', () => {
    const headers = headersOf({ secrets: [secretB, secretA] });
    expect(headers['x-webhook-signature']).toBe(hexHmac(body, secretB));
    expect(headers['x-webhook-signature']).not.toBe(hexHmac(body, secretA));
    expect(headers['x-webhook-signature']).not.toBe(hexHmac(`${body}x`, secretB));
  });
});

describe('buildWebhookHeaders', () => {
  it('builds every header of a delivery attempt, verifiable by a receiver', () => {
    const headers = headersOf({ secrets: [secretB, secretA] });
    expect(Object.keys(headers).sort()).toStrictEqual([
      'content-type',
      'webhook-id',
      'webhook-signature',
      'webhook-timestamp',
      'x-webhook-signature',
    ]);
    expect(headers['content-type']).toBe('application/json');
    expect(headers['webhook-id']).toBe(webhookId);
    expect(headers['webhook-timestamp']).toBe('1795000000');
    expect(standardVerify(secretA, headers, body)).toBe(true);
    expect(standardVerify(secretB, headers, body)).toBe(true);
    expect(headers['x-webhook-signature']).toBe(hexHmac(body, secretB));
  });

  it.each([
    ['php-post', 'application/x-www-form-urlencoded'],
    ['json', 'application/json'],
    ['application/json', 'application/json'],
    ['application/x-www-form-urlencoded', 'application/x-www-form-urlencoded'],
  ] as const)('maps content type %s to %s', (contentType, header) => {
    expect(headersOf({ contentType })['content-type']).toBe(header);
  });

  it('rejects an unknown content type', () => {
    expect(() => headersOf({ contentType: 'text/plain' as WebhookMimeType })).toThrow(
      new RangeError('Unknown webhook content type: text/plain'),
    );
  });
});
