import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  LATEST_WEBHOOK_VERSION,
  WEBHOOK_CONTENT_TYPES,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_VERSIONS,
  type WebhookContentType,
  type WebhookEventType,
  type WebhookVersion,
} from '#domain';
import { CreateWebhookHeaderDto, headersRules } from './webhook-header.dto.js';
import { applyRules, optional, required, WebhookRules } from './webhook-settings.rules.js';

/** `POST /api/webhooks`. name, url and events are required; the rest have defaults. */
export class CreateWebhookDto {
  @ApiProperty({ example: 'Shop orders', maxLength: 200 })
  @applyRules(required('name'), ...WebhookRules.name)
  name!: string;

  @ApiProperty({
    example: 'https://shop.example/webhooks/payments',
    maxLength: 2048,
    description:
      'An http:// or https:// URL of a public address, stored exactly as given. No user name or password, not even ' +
      'an empty one (`https://@shop.example/`); port 80, 443 or 1024–65535 (none: the scheme’s).',
  })
  @applyRules(required('url'), ...WebhookRules.url)
  url!: string;

  @ApiPropertyOptional({ enum: WEBHOOK_CONTENT_TYPES, default: 'json' })
  @applyRules(optional, ...WebhookRules.contentType)
  contentType?: WebhookContentType;

  @ApiPropertyOptional({ enum: WEBHOOK_VERSIONS, default: LATEST_WEBHOOK_VERSION })
  @applyRules(optional, ...WebhookRules.version)
  version?: WebhookVersion;

  @ApiPropertyOptional({ default: true })
  @applyRules(optional, ...WebhookRules.retryOnError)
  retryOnError?: boolean;

  @ApiProperty({ enum: WEBHOOK_EVENT_TYPES, isArray: true, minItems: 1 })
  @applyRules(required('events'), ...WebhookRules.events)
  events!: WebhookEventType[];

  @ApiPropertyOptional({
    type: 'string',
    format: 'uuid',
    nullable: true,
    description: 'null = events of every integration',
  })
  @applyRules(...WebhookRules.integrationId)
  integrationId?: string | null;

  @ApiPropertyOptional({ default: true, description: 'false: nothing is sent; matching events are logged as skipped' })
  @applyRules(optional, ...WebhookRules.enabled)
  enabled?: boolean;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 1000, nullable: true, default: null })
  @applyRules(...WebhookRules.maxPerSecond)
  maxPerSecond?: number | null;

  @ApiPropertyOptional({ default: true })
  @applyRules(optional, ...WebhookRules.skipSupersededRepeats)
  skipSupersededRepeats?: boolean;

  @ApiPropertyOptional({
    type: [CreateWebhookHeaderDto],
    maxItems: 10,
    description:
      'Sent with every request. Values are stored encrypted and shown back only as their last four characters.',
  })
  @applyRules(optional, ...headersRules(() => CreateWebhookHeaderDto))
  headers?: CreateWebhookHeaderDto[];
}
