/**
 * Webhook secrets and signatures (CONTRACT §5).
 *
 * - `webhook-signature`: Standard Webhooks (https://www.standardwebhooks.com): `v1,` + base64 HMAC-SHA256 over
 *   `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the base64-decoded part of the secret after `whsec_`.
 *   During a secret rotation there is one signature per valid secret, separated by a space.
 * - `x-webhook-signature`: the older scheme, lowercase hex HMAC-SHA256 of the body keyed with the whole secret string
 *   (including `whsec_`) as UTF-8.
 *
 * The body signed is exactly the bytes sent: a string is signed as its UTF-8 bytes, a `Uint8Array`/`Buffer` as is.
 * No error message ever contains a secret, a key or a signature.
 */
import { Buffer } from 'node:buffer';
import { createHmac, createSecretKey, randomBytes, timingSafeEqual, type KeyObject } from 'node:crypto';
import {
  WEBHOOK_MIME_TYPES,
  isWebhookContentType,
  type WebhookContentType,
  type WebhookMimeType,
} from './payload-encoding.js';

/** Prefix of every webhook secret. */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/** Random bytes in a generated secret. */
export const WEBHOOK_SECRET_BYTES = 32;

/** Accepted key sizes of a secret, in bytes (the Standard Webhooks recommendation). */
export const WEBHOOK_SECRET_MIN_BYTES = 24;
export const WEBHOOK_SECRET_MAX_BYTES = 64;

/** Default tolerance between the `webhook-timestamp` and the receiver's clock, both directions. */
export const DEFAULT_WEBHOOK_TOLERANCE_SECONDS = 300;

/** A webhook body: text (signed as UTF-8) or the exact bytes. */
export type WebhookBody = string | Uint8Array;

/** A webhook secret is malformed. The message never contains the secret. */
export class WebhookSecretError extends Error {
  override readonly name = 'WebhookSecretError';
}

/** Why a Standard Webhooks verification failed. */
export type WebhookVerificationFailure =
  'missing-header' | 'invalid-timestamp' | 'timestamp-too-old' | 'timestamp-too-new' | 'invalid-signature';

/** A webhook did not verify. `code` says why; the message never contains a secret or a signature. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';

  constructor(
    readonly code: WebhookVerificationFailure,
    message: string,
  ) {
    super(message);
  }
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
export function decodeWebhookSecret(secret: string): Buffer {
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

/** The Standard Webhooks HMAC key of a secret (validated once, then cached). */
function standardKey(secret: string): KeyObject {
  return cachedKey(`s:${secret}`, () => decodeWebhookSecret(secret));
}

/** Whether `secret` is a well-formed webhook secret ({@link decodeWebhookSecret} accepts it). */
export function isWebhookSecret(secret: unknown): secret is string {
  try {
    decodeWebhookSecret(secret as string);
    return true;
  } catch {
    return false;
  }
}

/** Input of {@link signStandardWebhook}. */
export interface SignStandardWebhookInput {
  /** The `webhook-id`: visible ASCII, 1–256 characters. */
  webhookId: string;
  /** The `webhook-timestamp`: Unix seconds, or a `Date` (rounded down to the second). */
  timestamp: number | Date;
  body: WebhookBody;
  /** Valid secrets, newest (current) first. One signature per secret, in this order. */
  secrets: string | readonly string[];
}

const WEBHOOK_ID = /^[\x21-\x7e]{1,256}$/;

function checkWebhookId(webhookId: string): string {
  if (typeof webhookId !== 'string' || !WEBHOOK_ID.test(webhookId)) {
    throw new TypeError('webhookId must be 1–256 visible ASCII characters');
  }
  return webhookId;
}

/** The `webhook-timestamp` header value of a timestamp. */
export function toWebhookTimestamp(timestamp: number | Date): string {
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

function standardSignature(key: Buffer | KeyObject, webhookId: string, timestamp: string, body: WebhookBody): string {
  return createHmac('sha256', key).update(`${webhookId}.${timestamp}.`, 'utf8').update(body).digest('base64');
}

/**
 * Sign a webhook the Standard Webhooks way.
 *
 * @returns the `webhook-signature` header value: `v1,<base64>` per secret, space-separated, newest first.
 * @throws {WebhookSecretError} for a malformed secret or an empty list; {@link TypeError}/{@link RangeError} for a
 *   malformed id or timestamp.
 */
export function signStandardWebhook({ webhookId, timestamp, body, secrets }: SignStandardWebhookInput): string {
  const id = checkWebhookId(webhookId);
  const ts = toWebhookTimestamp(timestamp);
  return secretList(secrets)
    .map((secret) => `v1,${standardSignature(standardKey(secret), id, ts, body)}`)
    .join(' ');
}

/** Headers as Node (`IncomingHttpHeaders`, any letter case) or fetch (`Headers`) provide them. */
export type WebhookHeaderSource =
  { get(name: string): string | null } | Readonly<Record<string, string | readonly string[] | undefined>>;

function header(headers: WebhookHeaderSource | undefined, name: string): string | undefined {
  if (headers === undefined || headers === null) return undefined;
  if (typeof headers.get === 'function') {
    return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  }
  const record = headers as Readonly<Record<string, string | readonly string[] | undefined>>;
  for (const key of Object.keys(record)) {
    if (key.toLowerCase() !== name) continue;
    const value = record[key];
    return typeof value === 'string' ? value : value?.join(' ');
  }
  return undefined;
}

/** Input of {@link verifyStandardWebhook}. Explicit `webhookId`/`timestamp`/`signature` win over `headers`. */
export interface VerifyStandardWebhookInput {
  body: WebhookBody;
  /** The secret, or every secret currently accepted (e.g. during a rotation). */
  secret: string | readonly string[];
  /** The request headers: `webhook-id`, `webhook-timestamp`, `webhook-signature` (any letter case). */
  headers?: WebhookHeaderSource;
  webhookId?: string;
  timestamp?: string | number;
  signature?: string;
  /** Allowed clock difference in seconds, both directions; default 300. A difference of exactly this is accepted. */
  toleranceSeconds?: number;
  /** The receiver's clock; default the current time. */
  now?: Date;
}

/**
 * Verify a Standard Webhooks signature: the timestamp must be within the tolerance (past or future) and at least one
 * `v1` signature in the header must match one of the secrets (constant-time comparison). Signatures of other versions
 * are ignored.
 *
 * @throws {WebhookVerificationError} when the webhook does not verify (`code` says why).
 * @throws {WebhookSecretError} when a secret is malformed (a configuration error, not a bad request).
 */
export function verifyStandardWebhook(input: VerifyStandardWebhookInput): void {
  const webhookId = input.webhookId ?? header(input.headers, 'webhook-id');
  const rawTimestamp = input.timestamp ?? header(input.headers, 'webhook-timestamp');
  const signature = input.signature ?? header(input.headers, 'webhook-signature');
  if (!webhookId || rawTimestamp === undefined || rawTimestamp === '' || !signature) {
    throw new WebhookVerificationError(
      'missing-header',
      'The webhook-id, webhook-timestamp and webhook-signature headers are required',
    );
  }
  const timestamp = String(rawTimestamp);
  if (!/^[0-9]{1,15}$/.test(timestamp)) {
    throw new WebhookVerificationError('invalid-timestamp', 'The webhook-timestamp is not Unix seconds');
  }
  const tolerance = input.toleranceSeconds ?? DEFAULT_WEBHOOK_TOLERANCE_SECONDS;
  const nowSeconds = Math.floor((input.now ?? new Date()).getTime() / 1000);
  const age = nowSeconds - Number(timestamp);
  if (age > tolerance) {
    throw new WebhookVerificationError('timestamp-too-old', 'The webhook-timestamp is too old');
  }
  if (-age > tolerance) {
    throw new WebhookVerificationError('timestamp-too-new', 'The webhook-timestamp is too far in the future');
  }
  const expected = secretList(input.secret).map((secret) =>
    Buffer.from(standardSignature(decodeWebhookSecret(secret), webhookId, timestamp, input.body), 'utf8'),
  );
  const candidates = signature
    .split(' ')
    .filter((part) => part.startsWith('v1,'))
    .map((part) => Buffer.from(part.slice(3), 'utf8'));
  let matched = false;
  for (const candidate of candidates) {
    for (const wanted of expected) {
      // Not short-circuited: every comparison runs, each in constant time.
      if (candidate.length === wanted.length && timingSafeEqual(candidate, wanted)) matched = true;
    }
  }
  if (!matched) {
    throw new WebhookVerificationError('invalid-signature', 'No webhook-signature matches');
  }
}

/** Like {@link verifyStandardWebhook}, but `false` instead of a {@link WebhookVerificationError}. */
export function isValidStandardWebhook(input: VerifyStandardWebhookInput): boolean {
  try {
    verifyStandardWebhook(input);
    return true;
  } catch (error) {
    if (error instanceof WebhookVerificationError) return false;
    throw error;
  }
}

/**
 * The `x-webhook-signature` of the older scheme: lowercase hex HMAC-SHA256 of the body, keyed with the whole secret
 * string (including `whsec_`) as UTF-8.
 */
export function signLegacyHex(body: WebhookBody, secret: string): string {
  if (typeof secret !== 'string' || secret === '') throw new WebhookSecretError('A webhook secret is required');
  return createHmac(
    'sha256',
    cachedKey(`l:${secret}`, () => Buffer.from(secret, 'utf8')),
  )
    .update(body)
    .digest('hex');
}

/** Verify an `x-webhook-signature` (hex, either letter case) in constant time. */
export function verifyLegacyHex(body: WebhookBody, secret: string, signature: string): boolean {
  if (typeof signature !== 'string') return false;
  const expected = Buffer.from(signLegacyHex(body, secret), 'utf8');
  const given = Buffer.from(signature.toLowerCase(), 'utf8');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The headers of one webhook delivery attempt (a type alias, so it is assignable to `Record<string, string>`). */
export type WebhookHeaders = {
  'content-type': WebhookMimeType;
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
  'x-webhook-signature': string;
};

/** Input of {@link buildWebhookHeaders}. */
export interface BuildWebhookHeadersInput extends SignStandardWebhookInput {
  /** The webhook's content type setting (`json`, `php-post`) or the MIME type `encodePayload` returned. */
  contentType: WebhookContentType | WebhookMimeType;
}

/**
 * Every header of a delivery attempt (CONTRACT §5). `webhook-signature` carries one signature per secret;
 * `x-webhook-signature` uses the first (current) secret.
 */
export function buildWebhookHeaders(input: BuildWebhookHeadersInput): WebhookHeaders {
  const secrets = secretList(input.secrets);
  return {
    'content-type': toMimeType(input.contentType),
    'webhook-id': checkWebhookId(input.webhookId),
    'webhook-timestamp': toWebhookTimestamp(input.timestamp),
    'webhook-signature': signStandardWebhook({ ...input, secrets }),
    'x-webhook-signature': signLegacyHex(input.body, secrets[0]!),
  };
}

const mimeTypes: ReadonlySet<string> = new Set(Object.values(WEBHOOK_MIME_TYPES));

function toMimeType(contentType: WebhookContentType | WebhookMimeType): WebhookMimeType {
  if (isWebhookContentType(contentType)) return WEBHOOK_MIME_TYPES[contentType];
  if (mimeTypes.has(contentType)) return contentType;
  throw new RangeError(`Unknown webhook content type: ${String(contentType).slice(0, 40)}`);
}
