/**
 * Webhook body encodings, one per content type setting: the same payload tree as JSON or as PHP-Post
 * (`application/x-www-form-urlencoded` in PHP bracket notation).
 *
 * ## How PHP rebuilds a form body (`$_POST`, `parse_str`), verified against PHP 8.2
 *
 * PHP splits the body on `&`, each pair on the first `=`, and percent-decodes name and value (`+` is a space). Only
 * then does it look at brackets — so `%5B`/`%5D` in a name are exactly the same as `[`/`]`; percent-encoding cannot
 * escape a bracket. The decoded name is then read as `top[sub1][sub2]…`:
 *
 * - Top-level name: leading spaces are dropped, every `.` and space is turned into `_` (`a.b` → `a_b`, `c d` → `c_d`),
 *   and the first `[` starts the sub-keys (a `[` without a later `]` is turned into `_`). An empty name drops the pair.
 *   A `]` is an ordinary character here.
 * - Sub-key: everything up to the next `]`, so it can contain `[`, `.`, spaces and anything else — but not `]`.
 *   An empty sub-key (`a[]`) and a sub-key of exactly one whitespace character (`a[ ]`, `a[\t]`…) mean "append with
 *   the next integer index". Text after a `]` that is not `[` is ignored.
 * - Names are C strings: a NUL byte ends the name (values are binary safe).
 * - Numeric sub-keys such as `0` become integer keys; an array with keys 0…n-1 is a list to PHP.
 * - Limits of php.ini: at most `max_input_vars` (default 1000) pairs and `max_input_nesting_level` (default 64)
 *   bracket levels; beyond them PHP drops data with a warning. Real payloads have about a dozen pairs, 3 levels.
 *
 * ## What this encoder does
 *
 * - Every leaf becomes one `name=value` pair, in the tree's key order; structural brackets are literal
 *   (`transaction[3dsecure][eci]=05`, as in the contract).
 * - Names and values are percent-encoded as UTF-8: every byte except `A–Z a–z 0–9 - . _ ~` is `%XX` (a space is
 *   `%20`, `+` is `%2B`), so `&`, `=`, `%`, `[`, `]`, non-ASCII text and emoji arrive unchanged.
 *   A lone UTF-16 surrogate (not representable in UTF-8) is sent as U+FFFD.
 * - `null` → empty value (the key is still present); `true`/`false` → `1`/`0`; a number → its JSON text (`1990`,
 *   `-0.5`); a non-finite number → empty value (JSON renders it `null`); a string → itself.
 * - A list → `a[0]=…&a[1]=…`. An empty object or list → one pair with an empty value (`a=`), so the key stays present
 *   (PHP rebuilds it as `''`; a form body cannot express an empty container).
 * - Like `JSON.stringify`: `toJSON()` is applied (a `Date` becomes its ISO string), `undefined`, functions and symbols
 *   are left out of objects and are empty values in lists, a bigint or a circular structure throws `TypeError`.
 *
 * ## Keys PHP cannot represent
 *
 * A tree key that PHP would change or lose makes {@link encodePhpPost} throw {@link PhpPostEncodingError} instead of
 * sending a body that rebuilds a different tree:
 * - top-level key: empty, or containing `.`, space, `[` or NUL;
 * - nested key: empty, exactly one whitespace character (space, tab, LF, VT, FF, CR), or containing `]` or NUL.
 *
 * The payload keys of the contract are plain identifiers (`transaction`, `3dsecure`, `eci`, …), so a webhook payload
 * never throws; the checks exist for robustness.
 */

/** The webhook content types a merchant can choose. */
export const WEBHOOK_CONTENT_TYPES = ['json', 'php-post'] as const;

/** A webhook content type setting. */
export type WebhookContentType = (typeof WEBHOOK_CONTENT_TYPES)[number];

/** The `content-type` header of each webhook content type. */
export const WEBHOOK_MIME_TYPES = Object.freeze({
  json: 'application/json',
  'php-post': 'application/x-www-form-urlencoded',
}) satisfies { readonly [C in WebhookContentType]: string };

/** A `content-type` header value of a webhook body. */
export type WebhookMimeType = (typeof WEBHOOK_MIME_TYPES)[WebhookContentType];

const webhookContentTypes: ReadonlySet<string> = new Set(WEBHOOK_CONTENT_TYPES);

/** Whether `value` is a webhook content type setting (`json` or `php-post`). */
export function isWebhookContentType(value: unknown): value is WebhookContentType {
  return typeof value === 'string' && webhookContentTypes.has(value);
}

/** A leaf of a payload tree. */
export type PayloadScalar = string | number | boolean | null;

/** A value of a payload tree. */
export type PayloadValue = PayloadScalar | readonly PayloadValue[] | PayloadObject;

/** An object of a payload tree. */
export type PayloadObject = { readonly [key: string]: PayloadValue };

/** An encoded webhook body and its `content-type`. */
export interface EncodedPayload {
  contentType: WebhookMimeType;
  body: string;
}

/** A tree key that PHP's form parser cannot rebuild. The message names the key (keys are never secret). */
export class PhpPostEncodingError extends Error {
  override readonly name = 'PhpPostEncodingError';

  constructor(
    /** The path of keys from the root to the offending key (inclusive). */
    readonly path: readonly string[],
    /** Why PHP cannot represent the key. */
    readonly reason: string,
  ) {
    super(`Cannot encode key ${describePath(path)} as PHP-Post: ${reason}`);
  }
}

function describePath(path: readonly string[]): string {
  return path.map((key) => JSON.stringify(key.length > 40 ? `${key.slice(0, 40)}…` : key)).join(' → ');
}

/** Encode a payload tree as JSON (UTF-8 text, no extra whitespace). */
export function encodeJson(tree: PayloadObject): string {
  return JSON.stringify(tree);
}

/**
 * Encode a payload tree as `application/x-www-form-urlencoded` in PHP bracket notation (see the module comment for
 * the exact rules).
 *
 * @throws {PhpPostEncodingError} for a key PHP cannot represent.
 * @throws {TypeError} when the tree is not an object, contains a bigint or is circular.
 */
export function encodePhpPost(tree: PayloadObject): string {
  if (tree === null || typeof tree !== 'object' || Array.isArray(tree)) {
    throw new TypeError('A PHP-Post payload must be an object');
  }
  const pairs: string[] = [];
  const ancestors = new Set<object>();

  const leaf = (path: readonly string[], value: string): void => {
    const name =
      percentEncode(path[0]!) +
      path
        .slice(1)
        .map((key) => `[${percentEncode(key)}]`)
        .join('');
    pairs.push(`${name}=${percentEncode(value)}`);
  };

  /** `value` has had `toJSON` applied; object members that JSON omits never get here. */
  const visit = (path: readonly string[], value: unknown): void => {
    switch (typeof value) {
      case 'string':
        return leaf(path, value);
      case 'number':
        return leaf(path, Number.isFinite(value) ? JSON.stringify(value) : '');
      case 'boolean':
        return leaf(path, value ? '1' : '0');
      case 'bigint':
        throw new TypeError(`Cannot encode a bigint at ${describePath(path)}`);
      case 'undefined':
      case 'function':
      case 'symbol':
        // Only list elements get here; JSON renders them as null.
        return leaf(path, '');
    }
    if (value === null) return leaf(path, '');
    visitChildren(path, value as object);
  };

  /** Visit the members of an object or list; an empty one is a single empty value. */
  const visitChildren = (path: readonly string[], container: object): void => {
    if (ancestors.has(container)) throw new TypeError(`Cannot encode a circular structure at ${describePath(path)}`);
    ancestors.add(container);
    const before = pairs.length;
    const isList = Array.isArray(container);
    // Like JSON: every index of a list (a hole is null), only the own enumerable string keys of an object.
    const keys = isList
      ? Array.from({ length: container.length }, (_, index) => String(index))
      : Object.keys(container);
    for (const key of keys) {
      const child = applyToJson((container as Record<string, unknown>)[key], key);
      if (!isList && isOmitted(child)) continue;
      const childPath = [...path, key];
      assertRepresentableKey(childPath);
      visit(childPath, child);
    }
    ancestors.delete(container);
    if (path.length > 0 && pairs.length === before) leaf(path, '');
  };

  visitChildren([], tree);
  return pairs.join('&');
}

/**
 * Encode a payload tree for a webhook's content type setting.
 *
 * @returns the body and the matching `content-type` header value.
 */
export function encodePayload(contentType: WebhookContentType, tree: PayloadObject): EncodedPayload {
  switch (contentType) {
    case 'json':
      return { contentType: WEBHOOK_MIME_TYPES.json, body: encodeJson(tree) };
    case 'php-post':
      return { contentType: WEBHOOK_MIME_TYPES['php-post'], body: encodePhpPost(tree) };
    default:
      throw new RangeError(`Unknown webhook content type: ${String(contentType).slice(0, 20)}`);
  }
}

function applyToJson(value: unknown, key: string): unknown {
  if (value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    return (value as { toJSON(key: string): unknown }).toJSON(key);
  }
  return value;
}

function isOmitted(value: unknown): boolean {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol';
}

/** Whitespace PHP skips before a `]` (C `isspace`): `a[ ]` is `a[]`. */
const PHP_SINGLE_WHITESPACE = /^[ \t\n\v\f\r]$/;

function assertRepresentableKey(path: readonly string[]): void {
  const key = path[path.length - 1]!;
  if (key.includes('\0')) throw new PhpPostEncodingError(path, 'PHP ends a name at a NUL byte');
  if (path.length === 1) {
    if (key === '') throw new PhpPostEncodingError(path, 'PHP drops a pair with an empty name');
    if (/[ .]/.test(key)) throw new PhpPostEncodingError(path, 'PHP turns "." and " " in a top-level name into "_"');
    if (key.includes('[')) throw new PhpPostEncodingError(path, 'PHP reads "[" in a top-level name as a sub-key');
    return;
  }
  if (key === '' || PHP_SINGLE_WHITESPACE.test(key)) {
    throw new PhpPostEncodingError(path, 'PHP reads an empty or single-whitespace sub-key as "append" ([])');
  }
  if (key.includes(']')) throw new PhpPostEncodingError(path, 'PHP ends a sub-key at the first "]"');
}

const utf8 = new TextEncoder();
const HEX = '0123456789ABCDEF';

/** Percent-encode the UTF-8 bytes of `text`, leaving only the RFC 3986 unreserved characters literal. */
function percentEncode(text: string): string {
  if (/^[A-Za-z0-9\-._~]*$/.test(text)) return text;
  let out = '';
  for (const byte of utf8.encode(text)) {
    const unreserved =
      (byte >= 0x41 && byte <= 0x5a) ||
      (byte >= 0x61 && byte <= 0x7a) ||
      (byte >= 0x30 && byte <= 0x39) ||
      byte === 0x2d ||
      byte === 0x2e ||
      byte === 0x5f ||
      byte === 0x7e;
    out += unreserved ? String.fromCharCode(byte) : `%${HEX[byte >> 4]}${HEX[byte & 0xf]}`;
  }
  return out;
}
