import { registerDecorator } from 'class-validator';

const MAX_KEYS = 32;
const MAX_STRING = 1_024;

/**
 * The raw PSP authentication result: null, or a plain object of at most 32 fields whose values are strings (up to
 * 1 KiB), numbers, booleans or null. PSPs send extra fields and odd types, so the inner fields are not checked
 * beyond that: libs/domain's resolveThreeDSecure reads what it understands and ignores the rest. The object itself
 * is never stored or logged; only its resolved `3dsecure` form is.
 */
export function isRawAuthentication(value: unknown): boolean {
  if (value === null || value === undefined) return true;
  if (typeof value !== 'object' || Array.isArray(value) || Object.getPrototypeOf(value) !== Object.prototype)
    return false;
  const entries = Object.entries(value);
  if (entries.length > MAX_KEYS) return false;
  return entries.every(
    ([, field]) =>
      field === null ||
      typeof field === 'boolean' ||
      (typeof field === 'number' && Number.isFinite(field)) ||
      (typeof field === 'string' && field.length <= MAX_STRING),
  );
}

export function IsRawAuthentication(): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isRawAuthentication',
      target: target.constructor,
      propertyName: propertyName as string,
      options: {
        message: `must be null or an object of at most ${MAX_KEYS} fields with string (up to ${MAX_STRING} characters), number, boolean or null values`,
      },
      validator: { validate: isRawAuthentication },
    });
}
