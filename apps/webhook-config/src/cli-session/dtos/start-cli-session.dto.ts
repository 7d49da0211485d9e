import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import {
  LATEST_WEBHOOK_VERSION,
  WEBHOOK_CONTENT_TYPES,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_VERSIONS,
  type WebhookContentType,
  type WebhookEventType,
  type WebhookVersion,
} from '#domain';
import { applyRules, optional, WebhookRules } from '../../webhook/dtos/webhook-settings.rules.js';

/** `POST /api/cli/sessions`: what `payments listen` listens to; every field optional. */
export class StartCliSessionDto {
  @ApiPropertyOptional({
    enum: WEBHOOK_EVENT_TYPES,
    isArray: true,
    minItems: 1,
    description: 'The kinds of event to receive (default: all), as a webhook selects them.',
  })
  @applyRules(optional, ...WebhookRules.events)
  events?: WebhookEventType[];

  @ApiPropertyOptional({ enum: WEBHOOK_VERSIONS, default: LATEST_WEBHOOK_VERSION })
  @applyRules(optional, ...WebhookRules.version)
  version?: WebhookVersion;

  @ApiPropertyOptional({ enum: WEBHOOK_CONTENT_TYPES, default: 'json' })
  @applyRules(optional, ...WebhookRules.contentType)
  contentType?: WebhookContentType;

  @ApiPropertyOptional({
    maxLength: 2048,
    description: 'The local URL the command line forwards to: shown in the backend only.',
    example: 'http://localhost:4242/webhooks',
  })
  @IsOptional()
  @IsString({ message: 'forwardTo must be text of at most 2048 characters' })
  @MaxLength(2048, { message: 'forwardTo must be text of at most 2048 characters' })
  forwardTo?: string;
}
