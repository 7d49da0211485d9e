import { applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiProperty, ApiPropertyOptional, ApiResponse, getSchemaPath } from '@nestjs/swagger';

/** OpenAPI schema of one invalid field in a problem. */
export class FieldErrorDoc {
  @ApiProperty({
    description: 'The field (dotted path for nested fields, the parameter name for path and query).',
    example: 'name',
  })
  field!: string;
  @ApiProperty({ description: 'What is wrong with it. Never echoes the value sent.', example: 'must not be empty' })
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

export type ApiProblemsDecorator = (
  statuses: number[],
  overrides?: Record<number, string>,
) => MethodDecorator & ClassDecorator;

/**
 * An app's `ApiProblems(statuses, overrides?)`: documents problem responses (`application/problem+json`
 * ProblemDoc) of an operation or of every operation of a controller, each status with the app's standard
 * description unless `overrides` replaces it.
 */
export function apiProblemsWith(descriptions: Record<number, string>): ApiProblemsDecorator {
  return (statuses, overrides = {}) =>
    applyDecorators(
      ApiExtraModels(ProblemDoc, FieldErrorDoc),
      ...statuses.map((status) =>
        ApiResponse({
          status,
          description: overrides[status] ?? descriptions[status] ?? 'Error.',
          content: { 'application/problem+json': { schema: { $ref: getSchemaPath(ProblemDoc) } } },
        }),
      ),
    );
}
