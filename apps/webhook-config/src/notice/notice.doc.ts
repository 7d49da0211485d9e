import { ApiProperty } from '@nestjs/swagger';
import type { NoticeView } from './notice.service.js';

/** OpenAPI: a notice about a webhook. */
export class NoticeDoc implements NoticeView {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({
    enum: ['failing', 'disabled'],
    description: 'failing: every attempt failed for an hour; disabled: for WEBHOOK_DISABLE_AFTER, so it was disabled.',
  })
  kind!: 'failing' | 'disabled';
  @ApiProperty({ format: 'uuid' }) webhookId!: string;
  @ApiProperty() webhookName!: string;
  @ApiProperty({ format: 'date-time', description: 'The first failed attempt of the episode.' }) failingSince!: string;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
}

export class NoticeListDoc {
  @ApiProperty({ type: [NoticeDoc], description: 'Newest first.' }) data!: NoticeDoc[];
}
