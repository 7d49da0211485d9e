import { ApiProperty } from '@nestjs/swagger';
import { IsDefined } from 'class-validator';
import { IsInstant } from '#platform';

/** `POST /api/webhooks/{id}/recover`. */
export class RecoverDto {
  @ApiProperty({
    format: 'date-time',
    example: '2026-11-20T08:00:00Z',
    description:
      'Events since this time whose latest outcome is failed or skipped are sent again. An ISO 8601 date-time ' +
      'with `Z` or an offset; a bare date or a time without a zone is refused (400).',
  })
  @IsDefined({ message: 'since is required' })
  @IsInstant({ message: 'since must be a date and time with a time zone (ISO 8601, e.g. 2026-11-20T08:00:00Z)' })
  since!: string;
}
