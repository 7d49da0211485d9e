import { ApiProperty } from '@nestjs/swagger';
import { IsDefined, IsISO8601 } from 'class-validator';

/** `POST /api/webhooks/{id}/recover`. */
export class RecoverDto {
  @ApiProperty({
    format: 'date-time',
    example: '2026-11-20T08:00:00Z',
    description: 'Events since this time whose latest outcome is failed or skipped are sent again.',
  })
  @IsDefined({ message: 'since is required' })
  @IsISO8601({ strict: true }, { message: 'since must be a date and time (ISO 8601, e.g. 2026-11-20T08:00:00Z)' })
  since!: string;
}
