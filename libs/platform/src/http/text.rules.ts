import { ValidateBy, type ValidationOptions } from 'class-validator';

/**
 * The length of `text` as PostgreSQL's `length()` counts it: in code points. class-validator's `Length` counts
 * differently (an emoji presentation sequence such as "a\uFE0F" is one character to it, two to PostgreSQL), so
 * a value it accepts could still break a `CHECK (length(…) …)` after validation.
 */
export function codePointLength(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}

/** Text of `min`–`max` characters as the database counts them (see {@link codePointLength}). */
export function TextLength(min: number, max: number, options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'textLength',
      constraints: [min, max],
      validator: {
        validate: (value: unknown) =>
          typeof value !== 'string' || (codePointLength(value) >= min && codePointLength(value) <= max),
        defaultMessage: (args) => `${args?.property} must be between ${min} and ${max} characters long`,
      },
    },
    options,
  );
}
