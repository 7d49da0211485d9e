import { registerDecorator, ValidationOptions } from 'class-validator';

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|([+-])(\d{2}):?(\d{2}))$/i;
const MIN_YEAR = 1970;
const MAX_YEAR = 9999;

/**
 * Parses an ISO 8601 date-time with a time zone (`2026-11-22T10:00:00Z`, `…+01:00`, fractions up to 9 digits,
 * kept to the millisecond) between the years 1970 and 9999. A space where the `+` of an offset was is read as `+`
 * (an unencoded `+` in a query string arrives as a space). Returns undefined for anything else, including
 * impossible dates such as February 30.
 */
export function parseInstant(value: unknown): Date | undefined {
  if (typeof value !== 'string' || value.length > 40) return undefined;
  const match = DATE_TIME.exec(value.replace(/ (\d{2}:?\d{2})$/, '+$1'));
  if (!match) return undefined;
  const [, y, mo, d, h, mi, s = '0', fraction = '0', zone, sign, oh, om] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (year < MIN_YEAR || year > MAX_YEAR || month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59)
    return undefined;
  if (day < 1 || day > new Date(Date.UTC(year, month, 0)).getUTCDate()) return undefined;
  let offsetMinutes = 0;
  if (zone.toUpperCase() !== 'Z') {
    if (Number(oh) > 23 || Number(om) > 59) return undefined;
    offsetMinutes = (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om));
  }
  const millis = Number(fraction.padEnd(3, '0').slice(0, 3));
  const time = Date.UTC(year, month - 1, day, hour, minute, second, millis) - offsetMinutes * 60_000;
  const date = new Date(time);
  const parsedYear = date.getUTCFullYear();
  return parsedYear < MIN_YEAR || parsedYear > MAX_YEAR ? undefined : date;
}

/** Validates an ISO 8601 date-time with a time zone (see {@link parseInstant}). */
export function IsInstant(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isInstant',
      target: target.constructor,
      propertyName: propertyName as string,
      options: {
        message: 'must be an ISO 8601 date-time with a time zone in the years 1970–9999, e.g. 2026-11-22T10:00:00.000Z',
        ...options,
      },
      validator: { validate: (value: unknown) => parseInstant(value) !== undefined },
    });
}
