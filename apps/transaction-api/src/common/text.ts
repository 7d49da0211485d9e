import { applyDecorators } from '@nestjs/common';
import { IsString } from 'class-validator';
import { NoNul, TextLength } from '#platform';

/**
 * A text field of `min`–`max` characters that PostgreSQL can store: counted as its CHECK constraints count them,
 * and without NUL characters (either would make the insert fail after validation).
 */
export function IsText(min: number, max: number): PropertyDecorator {
  return applyDecorators(IsString(), TextLength(min, max), NoNul());
}
