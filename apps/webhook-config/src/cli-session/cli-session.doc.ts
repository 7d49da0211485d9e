import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { WEBHOOK_CONTENT_TYPES, WEBHOOK_EVENT_TYPES, WEBHOOK_VERSIONS, PLATFORM_EVENT_TYPES } from '#domain';

/** OpenAPI: a `payments listen` session as started. */
export class CliSessionStartedDoc {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ description: 'The session’s signing secret (`whsec_…`): every forwarded request is signed with it.' })
  secret!: string;
  @ApiProperty({ format: 'uuid' }) merchantId!: string;
  @ApiProperty({ format: 'uuid', description: 'The API key’s integration: the session gets its events.' })
  integrationId!: string;
  @ApiProperty({ enum: WEBHOOK_EVENT_TYPES, isArray: true }) events!: string[];
  @ApiProperty({ enum: WEBHOOK_VERSIONS }) version!: string;
  @ApiProperty({ enum: WEBHOOK_CONTENT_TYPES }) contentType!: string;
  @ApiProperty({ type: 'string', nullable: true }) forwardTo!: string | null;
  @ApiProperty({ description: 'How long events wait for a command line that lost its connection.' })
  keepEventsSeconds!: number;
}

/** OpenAPI: a sample event sent to the listening sessions. */
export class CliTriggeredDoc {
  @ApiProperty({ format: 'uuid' }) eventId!: string;
  @ApiProperty({ enum: PLATFORM_EVENT_TYPES }) eventType!: string;
  @ApiProperty({ description: 'How many live sessions of the integration listen to this kind.' }) sessions!: number;
}

/** OpenAPI: a live session, as the backend lists it. */
export class CliSessionDoc {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) integrationId!: string;
  @ApiProperty({ enum: WEBHOOK_EVENT_TYPES, isArray: true }) events!: string[];
  @ApiProperty({ enum: WEBHOOK_VERSIONS }) version!: string;
  @ApiProperty({ enum: WEBHOOK_CONTENT_TYPES }) contentType!: string;
  @ApiProperty({ type: 'string', nullable: true }) forwardTo!: string | null;
  @ApiProperty({ description: 'Whether a command line is connected now.' }) connected!: boolean;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) lastSeenAt!: string;
}

export class CliSessionListDoc {
  @ApiProperty({ type: [CliSessionDoc] }) data!: CliSessionDoc[];
}

/** OpenAPI: one event a command line forwarded, with what the local URL answered. */
export class CliSessionLogDoc {
  @ApiProperty() id!: string;
  @ApiProperty({ description: 'The `webhook-id` it was sent with.' }) webhookId!: string;
  @ApiProperty({ format: 'uuid' }) eventId!: string;
  @ApiProperty({ enum: PLATFORM_EVENT_TYPES }) eventType!: string;
  @ApiProperty({ description: 'The transaction uuid, or the subscription, payout or webhook id.' }) subjectId!: string;
  @ApiProperty({ type: 'string', nullable: true }) referenceId!: string | null;
  @ApiProperty({ description: 'The local HTTP status; 0: no complete response (see error).' }) status!: number;
  @ApiProperty() durationMs!: number;
  @ApiProperty({ type: 'string', nullable: true }) error!: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
}

export class CliSessionLogPageDoc {
  @ApiProperty({ type: [CliSessionLogDoc] }) data!: CliSessionLogDoc[];
  @ApiPropertyOptional({
    type: 'string',
    nullable: true,
    description: 'The cursor of the next (older) page; null: none.',
  })
  nextCursor!: string | null;
}
