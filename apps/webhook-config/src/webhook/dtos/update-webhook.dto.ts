import { ApiPropertyOptional } from '@nestjs/swagger';
import {
  WEBHOOK_CONTENT_TYPES,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_VERSIONS,
  type WebhookContentType,
  type WebhookEventType,
  type WebhookVersion,
} from '#domain';
import { UpdateWebhookHeaderDto, headersRules } from './webhook-header.dto.js';
import { applyRules, optional, WebhookRules } from './webhook-settings.rules.js';

/** `PATCH /api/webhooks/{id}`: only the fields sent change; `integrationId: null` links to all events. */
export class UpdateWebhookDto {
  @ApiPropertyOptional({ maxLength: 200 })
  @applyRules(optional, ...WebhookRules.name)
  name?: string;

  @ApiPropertyOptional()
  @applyRules(optional, ...WebhookRules.url)
  url?: string;

  @ApiPropertyOptional({ enum: WEBHOOK_CONTENT_TYPES })
  @applyRules(optional, ...WebhookRules.contentType)
  contentType?: WebhookContentType;

  @ApiPropertyOptional({ enum: WEBHOOK_VERSIONS })
  @applyRules(optional, ...WebhookRules.version)
  version?: WebhookVersion;

  @ApiPropertyOptional()
  @applyRules(optional, ...WebhookRules.retryOnError)
  retryOnError?: boolean;

  @ApiPropertyOptional({ enum: WEBHOOK_EVENT_TYPES, isArray: true, minItems: 1 })
  @applyRules(optional, ...WebhookRules.events)
  events?: WebhookEventType[];

  @ApiPropertyOptional({
    type: 'string',
    format: 'uuid',
    nullable: true,
    description: 'null = events of every integration',
  })
  @applyRules(...WebhookRules.integrationId)
  integrationId?: string | null;

  @ApiPropertyOptional({ description: 'false disables (reason manual), true enables again' })
  @applyRules(optional, ...WebhookRules.enabled)
  enabled?: boolean;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 1000, nullable: true, description: 'null: no limit' })
  @applyRules(...WebhookRules.maxPerSecond)
  maxPerSecond?: number | null;

  @ApiPropertyOptional()
  @applyRules(optional, ...WebhookRules.skipSupersededRepeats)
  skipSupersededRepeats?: boolean;

  @ApiPropertyOptional({
    type: [UpdateWebhookHeaderDto],
    maxItems: 10,
    description:
      'Replaces the whole list ([] removes every header). An entry without `value` keeps the value stored for that name.',
  })
  @applyRules(optional, ...headersRules(() => UpdateWebhookHeaderDto))
  headers?: UpdateWebhookHeaderDto[];
}
