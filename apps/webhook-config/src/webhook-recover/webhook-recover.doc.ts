import { ApiProperty } from '@nestjs/swagger';

/** OpenAPI: a recover started. */
export class RecoverStartedDoc {
  @ApiProperty({
    format: 'uuid',
    type: 'string',
    nullable: true,
    description: 'The recover (its progress: GET /api/webhooks/{id}/recover); null when there was nothing to send.',
  })
  id!: string | null;

  @ApiProperty({
    type: 'integer',
    description: 'How many events are sent again (their latest outcome was failed or skipped); the log shows them.',
  })
  count!: number;
}

/** OpenAPI: a recover's progress. */
export class RecoverProgressDoc {
  @ApiProperty({ format: 'uuid' }) id!: string;

  @ApiProperty({
    enum: ['running', 'finished', 'cancelled'],
    description:
      'running: sending; finished: every event was attempted; cancelled: stopped (DELETE, or the webhook was disabled).',
  })
  state!: string;

  @ApiProperty({ format: 'date-time' }) since!: string;

  @ApiProperty({ type: 'integer', description: 'Events to send again, counted when it started.' })
  total!: number;

  @ApiProperty({ type: 'integer', description: 'Events sent again so far (attempted; the log shows each outcome).' })
  sent!: number;

  @ApiProperty({ format: 'date-time' }) startedAt!: string;

  @ApiProperty({ format: 'date-time', type: 'string', nullable: true }) finishedAt!: string | null;

  @ApiProperty({
    enum: ['requested', 'disabled'],
    type: 'string',
    nullable: true,
    description: 'Why it was cancelled: requested (DELETE) or disabled (the webhook was disabled); null otherwise.',
  })
  cancelReason!: string | null;
}
