import { applyDecorators } from '@nestjs/common';
import { IsString } from 'class-validator';
import { TextLength } from '#platform';

/**
 * A text field of `min`–`max` characters that PostgreSQL can store: counted as its CHECK constraints count them
 * (NUL and lone surrogates never get this far: the HTTP edge's input guard refuses them for every field).
 */
export function IsText(min: number, max: number): PropertyDecorator {
  return applyDecorators(IsString(), TextLength(min, max));
}
