import 'reflect-metadata';
import { describe, expect, it } from '@jest/globals';
import type { ArgumentMetadata, Type } from '@nestjs/common';
import { Type as ToType } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsDefined,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { ProblemException, type FieldError } from './problem.js';
import { createValidationPipe } from './validation.pipe.js';

class Inner {
  @IsInt()
  @Min(1)
  count!: number;
}

class Body {
  @IsString()
  @MaxLength(5)
  @Matches(/^[a-z]*$/, { message: 'name must be lower-case letters' })
  name!: string;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(100)
  size?: number;

  @IsDefined({ message: 'tags is required' })
  @IsArray({ message: 'tags must be a list' })
  @ArrayMaxSize(2, { message: 'tags has too many entries' })
  @IsIn(['a', 'b'], { each: true, message: 'tags may only contain a, b' })
  tags!: string[];

  @IsOptional()
  @ValidateNested()
  @ToType(() => Inner)
  inner?: Inner;
}

class Query {
  @IsOptional()
  @ToType(() => Number)
  @IsInt({ message: 'limit must be a whole number from 1 to 100' })
  @Min(1, { message: 'limit must be a whole number from 1 to 100' })
  @Max(100, { message: 'limit must be a whole number from 1 to 100' })
  limit?: number;

  @IsOptional()
  @IsIn(['x', 'y'])
  status?: string;

  @IsOptional()
  @IsIn(['a', 'b'], { each: true })
  tags?: string[];
}

const pipe = createValidationPipe();

async function errorsOf(
  value: unknown,
  metatype: Type,
  type: ArgumentMetadata['type'] = 'body',
): Promise<FieldError[]> {
  try {
    await pipe.transform(value, { type, metatype });
  } catch (error) {
    if (error instanceof ProblemException) return error.problem.errors ?? [];
    throw error;
  }
  throw new Error('expected a validation problem');
}

const valid = { name: 'shop', tags: ['a'] };

describe('createValidationPipe', () => {
  it('names a missing field once: "is required", not every rule it would break', async () => {
    expect(await errorsOf({}, Body)).toEqual([
      { field: 'name', message: 'is required' },
      { field: 'tags', message: 'is required' },
    ]);
  });

  it('gives only the wrong type, not the range or length rules a value of that type would break', async () => {
    expect(await errorsOf({ ...valid, size: 'abc', name: 42, tags: 'a' }, Body)).toEqual([
      { field: 'name', message: 'must be a string' },
      { field: 'size', message: 'must be an integer number' },
      { field: 'tags', message: 'must be a list' },
    ]);
    expect(await errorsOf({ ...valid, size: 1000 }, Body)).toEqual([
      { field: 'size', message: 'must not be greater than 100' },
    ]);
  });

  it('lists every rule a value of the right type breaks, each message once', async () => {
    expect(await errorsOf({ ...valid, name: 'TooLong', tags: ['a', 'c', 'b'] }, Body)).toEqual([
      { field: 'name', message: 'must be lower-case letters' },
      { field: 'name', message: 'must be shorter than or equal to 5 characters' },
      { field: 'tags', message: 'may only contain a, b' },
      { field: 'tags', message: 'has too many entries' },
    ]);
    expect(await errorsOf({ limit: 'x' }, Query, 'query')).toEqual([
      { field: 'limit', message: 'must be a whole number from 1 to 100' },
    ]);
  });

  it('names nested fields by their path', async () => {
    expect(await errorsOf({ ...valid, inner: { count: 0 } }, Body)).toEqual([
      { field: 'inner.count', message: 'must not be less than 1' },
    ]);
    expect(await errorsOf({ ...valid, inner: {} }, Body)).toEqual([{ field: 'inner.count', message: 'is required' }]);
  });

  it('refuses a query parameter given more than once, and still checks the others', async () => {
    expect(await errorsOf({ limit: ['2', '3'], status: ['x', 'y'] }, Query, 'query')).toEqual([
      { field: 'limit', message: 'must be given only once' },
      { field: 'status', message: 'must be given only once' },
    ]);
    expect(await errorsOf({ limit: ['2', '3'], status: 'z' }, Query, 'query')).toEqual([
      { field: 'limit', message: 'must be given only once' },
      { field: 'status', message: 'must be one of the following values: x, y' },
    ]);
  });

  it('takes a repeated query parameter whose property is a list, and leaves unknown ones to the whitelist', async () => {
    await expect(pipe.transform({ tags: ['a', 'b'], limit: '5' }, { type: 'query', metatype: Query })).resolves.toEqual(
      { tags: ['a', 'b'], limit: 5 },
    );
    expect(await errorsOf({ sort: ['a', 'b'] }, Query, 'query')).toEqual([
      { field: 'sort', message: 'property sort should not exist' },
    ]);
  });

  it('does not read a list in a body as a repeated parameter', async () => {
    expect(await errorsOf({ ...valid, name: ['a', 'b'] }, Body)).toEqual([
      { field: 'name', message: 'must be a string' },
    ]);
  });

  it('never echoes the value sent', async () => {
    const errors = await errorsOf({ name: 'SECRETVALUE', size: 'SECRET2', tags: ['SECRET3'] }, Body);
    expect(JSON.stringify(errors)).not.toContain('SECRET');
  });
});
