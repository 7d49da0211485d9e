import { ApiProperty } from '@nestjs/swagger';

/** OpenAPI: a delivery queued; the webhook's log shows its outcome. */
export class QueuedDeliveryDoc {
  @ApiProperty({
    format: 'uuid',
    description: 'The delivery; every attempt of it carries this id in its `webhook-id` header.',
  })
  deliveryId!: string;
}
