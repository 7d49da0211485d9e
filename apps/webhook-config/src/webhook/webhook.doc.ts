import { ApiProperty } from '@nestjs/swagger';
import { WEBHOOK_CONTENT_TYPES, WEBHOOK_EVENT_TYPES, WEBHOOK_VERSIONS } from '#domain';
import type { WebhookHeaderView } from './webhook-header.service.js';
import type { RotatedSecret, SecretView } from './webhook-secret.service.js';
import type { WebhookHealthView, WebhookView } from './webhook.view.js';

/** OpenAPI: how a webhook's deliveries go. */
export class WebhookHealthDoc implements WebhookHealthView {
  @ApiProperty({
    enum: ['healthy', 'failing', 'disabled'],
    description: 'failing: the latest attempt failed; disabled: nothing is sent (see disabledReason).',
  })
  state!: 'healthy' | 'failing' | 'disabled';
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'The latest 2xx answer.' })
  lastSuccessAt!: string | null;
  @ApiProperty({
    type: 'string',
    format: 'date-time',
    nullable: true,
    description: 'The first failed attempt after the last success; null while the latest attempt succeeded.',
  })
  failingSince!: string | null;
  @ApiProperty({ type: 'integer', description: 'Attempts in the last 24 hours.' }) attempts24h!: number;
  @ApiProperty({ type: 'integer', description: 'Failed attempts in the last 24 hours.' }) failures24h!: number;
  @ApiProperty({
    enum: ['manual', 'failing', 'gone'],
    nullable: true,
    description:
      'Why the webhook is disabled: manual (by you), failing (its attempts all failed for WEBHOOK_DISABLE_AFTER), ' +
      'gone (its URL answered 410 Gone: the receiver says the address no longer exists; disabled at once, never ' +
      'repeated). Enabling it clears the reason and starts a new count: a webhook still failing is disabled again ' +
      'WEBHOOK_DISABLE_AFTER after the enabling.',
  })
  disabledReason!: 'manual' | 'failing' | 'gone' | null;
}

/** OpenAPI: a custom header as shown: never its value, only the value's last four characters. */
export class WebhookHeaderDoc implements WebhookHeaderView {
  @ApiProperty({ example: 'Authorization', description: 'As given (names are matched in any letter case).' })
  name!: string;
  @ApiProperty({
    example: '1234',
    description:
      'The last four characters of the value (empty for a value of four characters or fewer). The value itself is ' +
      'stored encrypted and never shown again: to keep it on a PATCH, send the entry without `value`.',
  })
  valueLast4!: string;
}

/** OpenAPI: a webhook as the API shows it (never with its secret). */
export class WebhookDoc implements WebhookView {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ example: 'Shop orders' }) name!: string;
  @ApiProperty({ example: 'https://shop.example/webhooks/payments', description: 'Exactly as given.' }) url!: string;
  @ApiProperty({ enum: WEBHOOK_CONTENT_TYPES }) contentType!: string;
  @ApiProperty({ enum: WEBHOOK_VERSIONS, description: 'The payload version.' }) version!: string;
  @ApiProperty() retryOnError!: boolean;
  @ApiProperty({ enum: WEBHOOK_EVENT_TYPES, isArray: true }) events!: string[];
  @ApiProperty({ type: 'string', format: 'uuid', nullable: true, description: 'null: events of every integration.' })
  integrationId!: string | null;
  @ApiProperty({ description: 'false: nothing is sent; each matching event is logged as skipped, to recover later.' })
  enabled!: boolean;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    minimum: 1,
    maximum: 1000,
    description: 'At most this many requests a second reach the URL; null: no limit.',
  })
  maxPerSecond!: number | null;
  @ApiProperty({
    description:
      'Pending repeats of a payment’s or subscription’s older events are not attempted once a newer one was delivered.',
  })
  skipSupersededRepeats!: boolean;
  @ApiProperty({
    type: [WebhookHeaderDoc],
    description: 'Custom headers sent with every request, in order (at most 10); values shown only masked.',
  })
  headers!: WebhookHeaderDoc[];
  @ApiProperty({ type: WebhookHealthDoc }) health!: WebhookHealthDoc;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}

export class CreatedWebhookDoc extends WebhookDoc {
  @ApiProperty({ description: 'The signing secret (`whsec_` + base64 of 32 bytes); also shown by the reveal.' })
  secret!: string;
}

export class WebhookListDoc {
  @ApiProperty({ type: [WebhookDoc], description: 'Newest first.' }) data!: WebhookDoc[];
}

export class RotatedSecretDoc implements RotatedSecret {
  @ApiProperty({ description: 'The new signing secret.' }) secret!: string;
}

export class SecretDoc implements SecretView {
  @ApiProperty({ description: 'The current signing secret.' }) secret!: string;
  @ApiProperty({
    type: 'string',
    format: 'date-time',
    nullable: true,
    description: 'While the secret replaced by a rotation still signs: when it stops. null otherwise.',
  })
  previousSecretExpiresAt!: string | null;
}

export class RetryOptionsDoc {
  @ApiProperty({ type: 'integer', description: 'With retryOnError: at most this many repeats of a failed attempt.' })
  repeats!: number;
  @ApiProperty({ type: 'integer', description: 'The last repeat this long after the first attempt (ms).' })
  withinMs!: number;
}

export class EventTypeOptionDoc {
  @ApiProperty({ enum: WEBHOOK_EVENT_TYPES }) type!: string;
  @ApiProperty({ description: 'Its name in the UI, e.g. "Transactions".' }) label!: string;
  @ApiProperty({ description: 'What it sends, in a sentence.' }) hint!: string;
}

export class WebhookOptionsDoc {
  @ApiProperty({ enum: WEBHOOK_VERSIONS, isArray: true }) versions!: string[];
  @ApiProperty({ enum: WEBHOOK_VERSIONS }) latestVersion!: string;
  @ApiProperty({ enum: WEBHOOK_EVENT_TYPES, isArray: true }) eventTypes!: string[];
  @ApiProperty({ type: [EventTypeOptionDoc], description: 'The event types with their wording, as `eventTypes`.' })
  events!: EventTypeOptionDoc[];
  @ApiProperty({ enum: WEBHOOK_CONTENT_TYPES, isArray: true }) contentTypes!: string[];
  @ApiProperty({ description: 'How long a rotated-out secret keeps signing.' }) rotationGraceHours!: number;
  @ApiProperty({ type: RetryOptionsDoc }) retry!: RetryOptionsDoc;
  @ApiProperty({
    description:
      'How long deliveries and their log entries are kept (WEBHOOK_LOG_RETENTION, ms): older ones are removed, a ' +
      'day at a time, and cannot be resent.',
  })
  logRetentionMs!: number;
}
