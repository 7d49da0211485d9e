/**
 * Webhook secrets and the signature headers of a delivery attempt.
 *
 * - `webhook-signature`: Standard Webhooks (https://www.standardwebhooks.com): `v1,` + base64 HMAC-SHA256 over
 *   `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the base64-decoded part of the secret after `whsec_`.
 *   During a secret rotation there is one signature per valid secret, separated by a space.
 * - `x-webhook-signature`: the older scheme, lowercase hex HMAC-SHA256 of the body keyed with the whole secret string
 *   (including `whsec_`) as UTF-8.
 *
 * The body signed is exactly the bytes sent: a string is signed as its UTF-8 bytes, a `Uint8Array`/`Buffer` as is.
 * Only the sending side lives here; receivers verify with the `standardwebhooks` package or a plain HMAC.
 * No error message ever contains a secret, a key or a signature.
 */
import { Buffer } from 'node:buffer';
import { createHmac, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import {
  WEBHOOK_MIME_TYPES,
  isWebhookContentType,
  type WebhookContentType,
  type WebhookMimeType,
} from './payload-encoding.js';

/** Prefix of every webhook secret. */
const WEBHOOK_SECRET_PREFIX = 'whsec_';

/** Random bytes in a generated secret. */
const WEBHOOK_SECRET_BYTES = 32;

/** Accepted key sizes of a secret, in bytes (the Standard Webhooks recommendation). */
const WEBHOOK_SECRET_MIN_BYTES = 24;
const WEBHOOK_SECRET_MAX_BYTES = 64;

/** A webhook body: text (signed as UTF-8) or the exact bytes. */
export type WebhookBody = string | Uint8Array;

/** A webhook secret is malformed. The message never contains the secret. */
export class WebhookSecretError extends Error {
  override readonly name = 'WebhookSecretError';
}

/** Generate a webhook secret: `whsec_` + base64 of 32 cryptographically random bytes. */
export function generateWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + randomBytes(WEBHOOK_SECRET_BYTES).toString('base64');
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * The HMAC key of a secret: the base64-decoded part after `whsec_`.
 *
 * @throws {WebhookSecretError} when the secret lacks the prefix, is not canonical padded base64, or its key is not
 *   24–64 bytes long.
 */
function decodeWebhookSecret(secret: string): Buffer {
  if (typeof secret !== 'string' || !secret.startsWith(WEBHOOK_SECRET_PREFIX)) {
    throw new WebhookSecretError(`A webhook secret must start with ${WEBHOOK_SECRET_PREFIX}`);
  }
  const encoded = secret.slice(WEBHOOK_SECRET_PREFIX.length);
  if (!BASE64.test(encoded)) {
    throw new WebhookSecretError(`A webhook secret must be ${WEBHOOK_SECRET_PREFIX} followed by padded base64`);
  }
  const key = Buffer.from(encoded, 'base64');
  if (key.length < WEBHOOK_SECRET_MIN_BYTES || key.length > WEBHOOK_SECRET_MAX_BYTES) {
    throw new WebhookSecretError(
      `A webhook secret key must be ${WEBHOOK_SECRET_MIN_BYTES}–${WEBHOOK_SECRET_MAX_BYTES} bytes long`,
    );
  }
  return key;
}

/**
 * HMAC keys by secret string. Importing raw key bytes costs more than the HMAC of a small body, and a
 * dispatcher signs with the same few secrets thousands of times a second. Bounded: cleared when full.
 */
const keyCache = new Map<string, KeyObject>();
const KEY_CACHE_MAX = 10_000;

function cachedKey(cacheKey: string, make: () => Buffer): KeyObject {
  let key = keyCache.get(cacheKey);
  if (!key) {
    if (keyCache.size >= KEY_CACHE_MAX) keyCache.clear();
    key = createSecretKey(make());
    keyCache.set(cacheKey, key);
  }
  return key;
}

const WEBHOOK_ID = /^[\x21-\x7e]{1,256}$/;

function checkWebhookId(webhookId: string): string {
  if (typeof webhookId !== 'string' || !WEBHOOK_ID.test(webhookId)) {
    throw new TypeError('webhookId must be 1–256 visible ASCII characters');
  }
  return webhookId;
}

/** The `webhook-timestamp` header value of a timestamp: Unix seconds, a `Date` rounded down to the second. */
function toWebhookTimestamp(timestamp: number | Date): string {
  const seconds = timestamp instanceof Date ? Math.floor(timestamp.getTime() / 1000) : timestamp;
  if (typeof seconds !== 'number' || !Number.isSafeInteger(seconds) || seconds < 0) {
    throw new RangeError('timestamp must be a non-negative integer number of Unix seconds or a valid Date');
  }
  return String(seconds);
}

function secretList(secrets: string | readonly string[]): readonly string[] {
  const list = typeof secrets === 'string' ? [secrets] : secrets;
  if (!Array.isArray(list) || list.length === 0) {
    throw new WebhookSecretError('At least one webhook secret is required');
  }
  return list;
}

/** `webhook-signature`: `v1,<base64>` per secret (validated once, then its key cached), space-separated, in order. */
function standardSignatures(
  webhookId: string,
  timestamp: string,
  body: WebhookBody,
  secrets: readonly string[],
): string {
  return secrets
    .map((secret) => {
      const key = cachedKey(`s:${secret}`, () => decodeWebhookSecret(secret));
      const hmac = createHmac('sha256', key).update(`${webhookId}.${timestamp}.`, 'utf8').update(body);
      return `v1,${hmac.digest('base64')}`;
    })
    .join(' ');
}

/** `x-webhook-signature`: lowercase hex HMAC-SHA256 of the body, keyed with the whole secret string as UTF-8. */
function legacyHexSignature(body: WebhookBody, secret: string): string {
  return createHmac(
    'sha256',
    cachedKey(`l:${secret}`, () => Buffer.from(secret, 'utf8')),
  )
    .update(body)
    .digest('hex');
}

/** The `user-agent` of every webhook request (the dispatcher's, and `payments listen`'s). */
export const WEBHOOK_USER_AGENT = 'payments-webhooks/1.0';

/** The headers of one webhook delivery attempt (a type alias, so it is assignable to `Record<string, string>`). */
export type WebhookHeaders = {
  'content-type': WebhookMimeType;
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
  'x-webhook-signature': string;
};

/** Input of {@link buildWebhookHeaders}. */
export interface BuildWebhookHeadersInput {
  /** The `webhook-id`: visible ASCII, 1–256 characters (the same on every repeat of a delivery). */
  webhookId: string;
  /** The `webhook-timestamp`: Unix seconds, or a `Date` (rounded down to the second). */
  timestamp: number | Date;
  body: WebhookBody;
  /** Valid secrets, newest (current) first. One `webhook-signature` signature per secret, in this order. */
  secrets: string | readonly string[];
  /** The webhook's content type setting (`json`, `php-post`) or the MIME type `encodePayload` returned. */
  contentType: WebhookContentType | WebhookMimeType;
}

/**
 * Every header of a delivery attempt: `content-type`, `webhook-id`, `webhook-timestamp`, `webhook-signature` with one
 * signature per secret, and `x-webhook-signature` made with the first (current) secret.
 *
 * @throws {WebhookSecretError} for a malformed secret or an empty list; {@link TypeError}/{@link RangeError} for a
 *   malformed id, timestamp or content type.
 */
export function buildWebhookHeaders(input: BuildWebhookHeadersInput): WebhookHeaders {
  const secrets = secretList(input.secrets);
  const webhookId = checkWebhookId(input.webhookId);
  const timestamp = toWebhookTimestamp(input.timestamp);
  return {
    'content-type': toMimeType(input.contentType),
    'webhook-id': webhookId,
    'webhook-timestamp': timestamp,
    // Validates every secret, so the first one is a well-formed secret below.
    'webhook-signature': standardSignatures(webhookId, timestamp, input.body, secrets),
    'x-webhook-signature': legacyHexSignature(input.body, secrets[0]!),
  };
}

const mimeTypes: ReadonlySet<string> = new Set(Object.values(WEBHOOK_MIME_TYPES));

function toMimeType(contentType: WebhookContentType | WebhookMimeType): WebhookMimeType {
  if (isWebhookContentType(contentType)) return WEBHOOK_MIME_TYPES[contentType];
  if (mimeTypes.has(contentType)) return contentType;
  throw new RangeError(`Unknown webhook content type: ${String(contentType).slice(0, 40)}`);
}
