import { registerDecorator } from 'class-validator';

const MAX_KEYS = 32;
const MAX_STRING = 1_024;

/**
 * The raw PSP authentication result: null, or a plain object of at most 32 fields. PSPs send extra fields, odd
 * types and nested data (EMV 3-D Secure's `messageExtension` is a list of objects), so values are not checked
 * beyond being JSON with strings of up to 1 KiB and lists and objects of up to 32 entries (the body parser already
 * refused deep nesting): libs/domain's resolveThreeDSecure reads what it understands — `eci`, `source`, `version`,
 * `flow` — and anything else, or any of those in a form it cannot use, gives `3dsecure: null` rather than refusing
 * a payment that was processed. The object itself is never stored or logged; only its resolved form is.
 */
export function isRawAuthentication(value: unknown): boolean {
  if (value === null || value === undefined) return true;
  if (!isPlainObject(value)) return false;
  return isBoundedJson(value);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}

function isBoundedJson(value: unknown): boolean {
  if (value === null || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (typeof value === 'string') return value.length <= MAX_STRING;
  const entries = Array.isArray(value) ? value : isPlainObject(value) ? Object.values(value) : undefined;
  return entries !== undefined && entries.length <= MAX_KEYS && entries.every(isBoundedJson);
}

export function IsRawAuthentication(): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isRawAuthentication',
      target: target.constructor,
      propertyName: propertyName as string,
      options: {
        message: `must be null or an object of at most ${MAX_KEYS} fields (strings up to ${MAX_STRING} characters, lists and objects up to ${MAX_KEYS} entries)`,
      },
      validator: { validate: isRawAuthentication },
    });
}
