import { ApiProperty } from '@nestjs/swagger';
import type { NoticeView } from './notice.service.js';

/** OpenAPI: a notice about a webhook. */
export class NoticeDoc implements NoticeView {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({
    enum: ['failing', 'disabled'],
    description: 'failing: every attempt failed for an hour; disabled: the platform disabled it (see reason).',
  })
  kind!: 'failing' | 'disabled';
  @ApiProperty({
    enum: ['failing', 'gone'],
    nullable: true,
    type: String,
    description:
      'For `disabled`: why — `failing` (every attempt failed for WEBHOOK_DISABLE_AFTER) or `gone` (the URL answered ' +
      '410 Gone; `failingSince` is then the time of that answer). null for `failing`.',
  })
  reason!: 'failing' | 'gone' | null;
  @ApiProperty({ format: 'uuid' }) webhookId!: string;
  @ApiProperty() webhookName!: string;
  @ApiProperty({ format: 'date-time', description: 'The first failed attempt of the episode.' }) failingSince!: string;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
}

export class NoticeListDoc {
  @ApiProperty({ type: [NoticeDoc], description: 'Newest first.' }) data!: NoticeDoc[];
}
