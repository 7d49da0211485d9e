import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, ApiResponse } from '@nestjs/swagger';

/** OpenAPI schema of one invalid field in a problem. */
export class FieldErrorDoc {
  @ApiProperty({
    description: 'The field (dotted path for nested fields, the parameter name for path and query).',
    example: 'amount',
  })
  field!: string;
  @ApiProperty({
    description: 'What is wrong with it. Never echoes the value sent.',
    example: 'must be at least 1 (minor units)',
  })
  message!: string;
}

/** OpenAPI schema of an RFC 9457 problem (`application/problem+json`), the body of every error. */
export class ProblemDoc {
  @ApiProperty({
    description: 'URN naming the kind of error, stable across versions.',
    example: 'urn:problem:validation',
  })
  type!: string;
  @ApiProperty({ example: 'Invalid request' })
  title!: string;
  @ApiProperty({ type: 'integer', example: 400 })
  status!: number;
  @ApiProperty({ example: 'The request has invalid fields.' })
  detail!: string;
  @ApiPropertyOptional({
    type: [FieldErrorDoc],
    description: 'Present for validation errors: one entry per invalid field.',
  })
  errors?: FieldErrorDoc[];
}

const DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid input: malformed JSON, a wrong type, an unknown field, an out-of-range value, a bad cursor. `errors` names each field.',
  401: 'Missing or invalid credentials.',
  404: 'Not found (also: an unknown API version, or a transaction of another merchant).',
  409: 'Conflict with the current state (see the endpoint).',
  413: 'The request body is larger than 64 KiB.',
  415: 'The request body is not `application/json`.',
  503:
    'The database is unavailable or did not answer within `DATABASE_STATEMENT_TIMEOUT` (10 s by default); ' +
    '`Retry-After` says when to try again. A write it interrupted was recorded in full or not at all. Repeating is ' +
    'safe where the API is idempotent — recording a transaction with its `uuid`, a payout or subscription with its ' +
    '`id`, a status change, a subscription `cancelled`/`ended` — elsewhere (merchants, integrations, `renewed`, ' +
    '`payment_failed`, a creation without its key) check first whether it was recorded.',
};

/** Documents the problem responses of an operation; `overrides` replaces the standard description of a status. */
export function ApiProblems(
  statuses: number[],
  overrides: Record<number, string> = {},
): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ...statuses.map((status) =>
      ApiResponse({
        status,
        description: overrides[status] ?? DESCRIPTIONS[status] ?? 'Error.',
        content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/ProblemDoc' } } },
      }),
    ),
  );
}
