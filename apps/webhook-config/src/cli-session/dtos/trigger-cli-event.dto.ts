import { ApiProperty } from '@nestjs/swagger';
import { IsDefined, IsIn } from 'class-validator';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '#domain';

/** `POST /api/cli/trigger`: the kind of sample event. */
export class TriggerCliEventDto {
  @ApiProperty({ enum: WEBHOOK_EVENT_TYPES, example: 'transaction' })
  @IsDefined({ message: `kind is required: one of ${WEBHOOK_EVENT_TYPES.join(', ')}` })
  @IsIn(WEBHOOK_EVENT_TYPES, { message: `kind must be one of ${WEBHOOK_EVENT_TYPES.join(', ')}` })
  kind!: WebhookEventType;
}
