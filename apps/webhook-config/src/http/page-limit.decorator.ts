import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

const MESSAGE = 'limit must be a whole number from 1 to 100';

/** A page's `limit` query parameter: 1–100, default 20 (the log pages). */
export function PageLimit(): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ minimum: 1, maximum: 100, default: 20 }),
    IsOptional(),
    Type(() => Number),
    IsInt({ message: MESSAGE }),
    Min(1, { message: MESSAGE }),
    Max(100, { message: MESSAGE }),
  );
}
