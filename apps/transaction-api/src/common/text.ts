import { applyDecorators } from '@nestjs/common';
import { IsString, Length, ValidateBy } from 'class-validator';

/**
 * A text field of `min`–`max` characters that PostgreSQL can store: no NUL character (PostgreSQL text cannot hold
 * one, and the insert would fail after validation).
 */
export function IsText(min: number, max: number): PropertyDecorator {
  return applyDecorators(
    IsString(),
    Length(min, max),
    ValidateBy({
      name: 'noNul',
      validator: {
        validate: (value: unknown) => typeof value !== 'string' || !value.includes('\0'),
        defaultMessage: () => 'must not contain NUL characters',
      },
    }),
  );
}
