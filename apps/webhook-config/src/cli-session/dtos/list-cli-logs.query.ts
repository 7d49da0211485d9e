import { ApiPropertyOptional } from '@nestjs/swagger';
import { PageLimit } from '../../http/page-limit.decorator.js';
import { IsOptional, Matches } from 'class-validator';

/** `GET /api/cli-sessions/{id}/logs?limit=&cursor=`. */
export class ListCliLogsQuery {
  @PageLimit()
  limit?: number;

  @ApiPropertyOptional({ description: 'nextCursor of the previous page' })
  @IsOptional()
  @Matches(/^[1-9][0-9]{0,17}$/, { message: 'cursor must be the nextCursor of a previous page' })
  cursor?: string;
}
