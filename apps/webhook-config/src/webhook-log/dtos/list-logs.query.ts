import { ApiPropertyOptional } from '@nestjs/swagger';
import { PageLimit } from '../../http/page-limit.decorator.js';
import { IsIn, IsOptional, IsString, IsUUID, MaxLength, MinLength } from 'class-validator';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '#domain';
import { LOG_OUTCOMES, type LogOutcome } from '#persistence';

/** `GET /api/webhooks/{id}/logs?limit=&cursor=&outcome=&eventType=&subject=&referenceId=`; the filters combine. */
export class ListLogsQuery {
  @PageLimit()
  limit?: number;

  @ApiPropertyOptional({ description: 'nextCursor of the previous page' })
  @IsOptional()
  @IsString({ message: 'cursor must be the nextCursor of a previous page' })
  @MaxLength(200, { message: 'cursor must be the nextCursor of a previous page' })
  cursor?: string;

  @ApiPropertyOptional({
    enum: LOG_OUTCOMES,
    description:
      'delivered = 2xx; failed = any other answer or none; skipped = not sent, the webhook was disabled; ' +
      'superseded = a repeat not sent, a newer event of its subject was delivered',
  })
  @IsOptional()
  @IsIn(LOG_OUTCOMES, { message: `outcome must be one of ${LOG_OUTCOMES.join(', ')}` })
  outcome?: LogOutcome;

  @ApiPropertyOptional({ enum: WEBHOOK_EVENT_TYPES, description: 'the kind of event' })
  @IsOptional()
  @IsIn(WEBHOOK_EVENT_TYPES, { message: `eventType must be one of ${WEBHOOK_EVENT_TYPES.join(', ')}` })
  eventType?: WebhookEventType;

  @ApiPropertyOptional({ description: 'a transaction uuid, or a subscription or payout id', format: 'uuid' })
  @IsOptional()
  @IsUUID('all', { message: 'subject must be a transaction uuid or a subscription or payout id' })
  subject?: string;

  @ApiPropertyOptional({ description: "the transaction's or subscription's referenceId (the shop's order number)" })
  @IsOptional()
  @IsString({ message: 'referenceId must be text of 1 to 255 characters' })
  @MinLength(1, { message: 'referenceId must be text of 1 to 255 characters' })
  @MaxLength(255, { message: 'referenceId must be text of 1 to 255 characters' })
  referenceId?: string;
}
