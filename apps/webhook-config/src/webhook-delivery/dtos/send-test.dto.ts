import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '#domain';

/** `POST /api/webhooks/{id}/test`: an optional body. */
export class SendTestDto {
  @ApiPropertyOptional({
    enum: WEBHOOK_EVENT_TYPES,
    description:
      'The kind of event whose sample to send (the event catalog’s “Send this example”, `GET /api/event-types`); ' +
      'one the webhook selects. Without it: the first kind the webhook selects.',
  })
  @IsOptional()
  @IsIn(WEBHOOK_EVENT_TYPES, { message: `eventType must be one of ${WEBHOOK_EVENT_TYPES.join(', ')}` })
  eventType?: WebhookEventType;
}
