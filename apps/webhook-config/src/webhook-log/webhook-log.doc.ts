import { ApiProperty } from '@nestjs/swagger';
import { WEBHOOK_CONTENT_TYPES, WEBHOOK_VERSIONS } from '#domain';
import { LOG_OUTCOMES, type LogOutcome, type WebhookLogRequest } from '#persistence';
import type { WebhookLogView } from './webhook-log.view.js';

/** OpenAPI: what an attempt sent. */
export class WebhookLogRequestDoc implements Required<WebhookLogRequest> {
  @ApiProperty({ description: 'The URL the attempt was sent to.' }) url!: string;
  @ApiProperty({ enum: WEBHOOK_CONTENT_TYPES }) contentType!: string;
  @ApiProperty({ enum: WEBHOOK_VERSIONS }) version!: string;
  @ApiProperty({ type: 'string', nullable: true, description: "The transaction's PSP; null for other events." })
  psp!: string | null;
  @ApiProperty({ type: 'string', nullable: true, description: "The transaction's type; null for other events." })
  type!: string | null;
  @ApiProperty({ format: 'uuid', description: 'The id of the transaction, subscription or payout.' }) uuid!: string;
  @ApiProperty({
    type: 'string',
    nullable: true,
    description: "The transaction's or subscription's referenceId (the shop's order number); null when it has none.",
  })
  referenceId!: string | null;
}

/** OpenAPI: one delivery attempt. */
export class WebhookLogDoc implements WebhookLogView {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ type: 'integer', description: "The attempt's place among its delivery's attempts (1 = the first)." })
  attempt!: number;
  @ApiProperty({ example: 'transaction' }) eventType!: string;
  @ApiProperty({ format: 'uuid' }) eventId!: string;
  @ApiProperty({ type: WebhookLogRequestDoc }) request!: WebhookLogRequestDoc;
  @ApiProperty({
    enum: LOG_OUTCOMES,
    description:
      'delivered: answered 2xx; failed: any other answer, or none; skipped: not sent, the webhook was disabled; ' +
      'superseded: a repeat not sent, because a newer event of the same subject was delivered.',
  })
  outcome!: LogOutcome;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'HTTP status; 0 when no complete response arrived in time; null when no request was made.',
  })
  status!: number | null;
  @ApiProperty({ type: 'integer' }) durationMs!: number;
  @ApiProperty({ type: 'string', nullable: true, description: 'Why no response arrived (for status 0).' })
  error!: string | null;
  @ApiProperty({ type: 'string', nullable: true, description: 'The start of the response body.' })
  responseExcerpt!: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({
    type: 'string',
    format: 'date-time',
    nullable: true,
    description: 'When the next automatic repeat is due; null when none is.',
  })
  nextAttemptAt!: string | null;
}

export class WebhookLogPageDoc {
  @ApiProperty({ type: [WebhookLogDoc], description: 'Newest first.' }) data!: WebhookLogDoc[];
  @ApiProperty({ type: 'string', nullable: true, description: 'Pass as `cursor` for the next page; null on the last.' })
  nextCursor!: string | null;
}
