import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';

export const LOG_OUTCOMES = ['success', 'failure'] as const;
export type LogOutcome = (typeof LOG_OUTCOMES)[number];

/** `GET /api/webhooks/{id}/logs?limit=&cursor=&outcome=`. */
export class ListLogsQuery {
  @ApiPropertyOptional({ minimum: 1, maximum: 100, default: 20 })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'limit must be a whole number from 1 to 100' })
  @Min(1, { message: 'limit must be a whole number from 1 to 100' })
  @Max(100, { message: 'limit must be a whole number from 1 to 100' })
  limit?: number;

  @ApiPropertyOptional({ description: 'nextCursor of the previous page' })
  @IsOptional()
  @IsString({ message: 'cursor must be the nextCursor of a previous page' })
  @MaxLength(200, { message: 'cursor must be the nextCursor of a previous page' })
  cursor?: string;

  @ApiPropertyOptional({ enum: LOG_OUTCOMES, description: 'success = 2xx, failure = anything else' })
  @IsOptional()
  @IsIn(LOG_OUTCOMES, { message: 'outcome must be success or failure' })
  outcome?: LogOutcome;
}
