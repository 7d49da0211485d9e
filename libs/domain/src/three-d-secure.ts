/**
 * The public `3dsecure` object of a transaction, resolved from the raw authentication result the PSP reported.
 *
 * Everything here is pure: no I/O, no clock, no randomness. Inputs are treated as untrusted raw PSP data — the
 * functions never throw on junk, they resolve to `null` instead.
 */
import { isCardNetwork } from './payment.constants.js';

/** Where the authentication came from: a 3-D Secure authentication or a network token cryptogram. */
export type ThreeDSecureSource = '3ds' | 'token';

/** How the cardholder was authenticated by the issuer (3-D Secure 2). */
export type ThreeDSecureFlow = 'frictionless' | 'challenge';

/**
 * The public `3dsecure` object, exactly four keys and never a cryptogram or a 3-D Secure transaction id.
 */
export type ThreeDSecure = {
  /** Electronic Commerce Indicator, always two digits, e.g. `05` (Visa: fully authenticated). */
  eci: string;
  /** `3ds` for a 3-D Secure authentication, `token` for a network token cryptogram. */
  source: ThreeDSecureSource;
  /** 3-D Secure protocol version, dotted three-part form (`2.2.0`); always `null` for `token`. */
  version: string | null;
  /** `frictionless` or `challenge`; `null` when unknown and always `null` for `token`. */
  flow: ThreeDSecureFlow | null;
};

/**
 * The raw authentication result as the processing core receives it from the PSP (`authentication` of
 * `POST /internal/transactions`). Every field is optional and untyped on purpose: PSPs send numbers for strings, odd
 * letter case, extra fields and junk.
 *
 * `cavv`, `dsTransactionId`, `acsTransactionId` and `threeDSServerTransactionId` are listed so callers can pass the
 * whole PSP object; {@link resolveThreeDSecure} never copies them.
 */
export interface RawAuthentication {
  eci?: unknown;
  source?: unknown;
  version?: unknown;
  flow?: unknown;
  cavv?: unknown;
  dsTransactionId?: unknown;
  acsTransactionId?: unknown;
  threeDSServerTransactionId?: unknown;
  [key: string]: unknown;
}

/** Input of {@link resolveThreeDSecure}. */
export interface ResolveThreeDSecureInput {
  /** Transaction type, `e-commerce` | `pos` | `tap-to-pay`. */
  type: unknown;
  /** Payment method, e.g. `visa` or `twint`. */
  paymentMethod: unknown;
  /** The raw PSP result, or `null`/absent when it was not collected. */
  authentication?: RawAuthentication | null | undefined;
}

/**
 * Normalise an ECI to its two-digit form.
 *
 * Accepted: a string of one or two ASCII digits (`'5'` → `'05'`, `'05'` → `'05'`) or an integer number 0–99
 * (`5` → `'05'`). Everything else — empty or blank strings, three digits, signs, decimals, surrounding whitespace,
 * non-ASCII digits, booleans, objects — gives `null`. Whitespace is deliberately not trimmed: the contract allows
 * "one or two digits" and nothing else.
 *
 * @returns the two-digit ECI, or `null` when none can be resolved.
 */
function normalizeEci(eci: unknown): string | null {
  if (typeof eci === 'number') {
    return Number.isInteger(eci) && eci >= 0 && eci <= 99 ? String(eci).padStart(2, '0') : null;
  }
  if (typeof eci === 'string' && /^[0-9]{1,2}$/.test(eci)) {
    return eci.padStart(2, '0');
  }
  return null;
}

/**
 * Normalise a 3-D Secure protocol version to the dotted three-part form.
 *
 * - `'2.2.0'` → `'2.2.0'`, `'2.2'` → `'2.2.0'`, `'2'` → `'2.0.0'`, `'2.3.1.1'` → `'2.3.1'` (extra parts dropped).
 * - Leading zeros of a part are removed (`'02.02'` → `'2.2.0'`).
 * - Every part must be ASCII digits: `'2.x'`, `'abc'`, `''`, `'2..1'`, `'v2.2'`, `' 2.2'` give `null`.
 * - A finite non-negative number is read as its decimal text (`2.2` → `'2.2.0'`, `2` → `'2.0.0'`).
 *
 * @returns the version, or `null` when it is not numeric.
 */
function normalizeThreeDSecureVersion(version: unknown): string | null {
  let text: string;
  if (typeof version === 'number') {
    if (!Number.isFinite(version) || version < 0) return null;
    text = String(version);
  } else if (typeof version === 'string') {
    text = version;
  } else {
    return null;
  }
  if (!/^[0-9]+(\.[0-9]+)*$/.test(text)) return null;
  const parts = text.split('.').map((part) => part.replace(/^0+(?=[0-9])/, ''));
  while (parts.length < 3) parts.push('0');
  return parts.slice(0, 3).join('.');
}

/**
 * Normalise the authentication flow: `frictionless` or `challenge` in any ASCII letter case; anything else is `null`.
 */
function normalizeThreeDSecureFlow(flow: unknown): ThreeDSecureFlow | null {
  if (typeof flow !== 'string') return null;
  if (/^frictionless$/i.test(flow)) return 'frictionless';
  if (/^challenge$/i.test(flow)) return 'challenge';
  return null;
}

/**
 * Resolve the public `3dsecure` object of a transaction (for merchants: docs/3dsecure.md). Rules, in order:
 *
 * 1. `null` unless `type` is `e-commerce` and `paymentMethod` is a card network ({@link isCardNetwork}); POS,
 *    tap-to-pay and every other method — TWINT, invoice, crypto, Apple Pay, Google Pay and any method not listed
 *    (`bank-transfer`, `klarna`) — give `null`.
 * 2. `null` when `authentication` is `null`/absent (or not an object): not collected. Historical transactions are
 *    never backfilled.
 * 3. `null` when no ECI can be resolved ({@link normalizeEci}); otherwise the two-digit ECI passes through.
 * 4. `null` when `source` is not exactly `3ds` or `token`. Unlike `flow`, the comparison is case-sensitive:
 *    the contract grants "any letter case" to `flow` only, so `3DS` or `Token` is treated as unresolvable.
 * 5. `source = token`: `version` and `flow` are `null`, the ECI is kept.
 * 6. `source = 3ds`: `version` via {@link normalizeThreeDSecureVersion}, `flow` via
 *    {@link normalizeThreeDSecureFlow}; a junk value nulls only that field.
 * 7. The result has exactly the keys `eci, source, version, flow`. The cryptogram (`cavv`) and the 3-D Secure
 *    transaction ids are never copied.
 *
 * Never throws, whatever the input (except for a getter that itself throws).
 */
export function resolveThreeDSecure(input: ResolveThreeDSecureInput): ThreeDSecure | null {
  if (input === null || typeof input !== 'object') return null;
  const { type, paymentMethod, authentication } = input;
  if (type !== 'e-commerce' || !isCardNetwork(paymentMethod)) return null;
  if (authentication === null || typeof authentication !== 'object' || Array.isArray(authentication)) return null;

  const eci = normalizeEci(authentication.eci);
  if (eci === null) return null;

  const source = authentication.source;
  if (source === 'token') {
    return { eci, source: 'token', version: null, flow: null };
  }
  if (source === '3ds') {
    return {
      eci,
      source: '3ds',
      version: normalizeThreeDSecureVersion(authentication.version),
      flow: normalizeThreeDSecureFlow(authentication.flow),
    };
  }
  return null;
}
