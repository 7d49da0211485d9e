import { ApiProperty } from '@nestjs/swagger';
import {
  PLATFORM_EVENT_TYPES,
  WEBHOOK_CONTENT_TYPES,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_MIME_TYPES,
  WEBHOOK_VERSIONS,
  type EventKind,
  type JsonSchema,
  type PayloadObject,
  type PlatformEventType,
  type WebhookContentType,
  type WebhookMimeType,
  type WebhookVersion,
} from '#domain';
import type { CatalogEncoding, CatalogKind, CatalogVersion, EventCatalog } from './event-catalog.view.js';

/** OpenAPI: an example body in one content type. */
export class CatalogEncodingDoc implements CatalogEncoding {
  @ApiProperty({ enum: WEBHOOK_CONTENT_TYPES, description: 'The webhook setting `contentType`.' })
  contentType!: WebhookContentType;
  @ApiProperty({ enum: Object.values(WEBHOOK_MIME_TYPES), description: 'The `content-type` header it is sent with.' })
  mediaType!: WebhookMimeType;
  @ApiProperty({
    description:
      'The example exactly as it is sent and signed: compact JSON, or the PHP-Post form body (PHP bracket notation, ' +
      'pairs joined by `&`, names and values percent-encoded as UTF-8).',
  })
  body!: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description:
      "JSON Schema (2020-12) of what the receiver's parser rebuilds from such a body: for JSON the payload schema, " +
      "for PHP-Post the tree of PHP's `$_POST` (every leaf a string, null an empty string).",
  })
  schema!: JsonSchema;
}

/** OpenAPI: one payload version of a kind of event. */
export class CatalogVersionDoc implements CatalogVersion {
  @ApiProperty({ enum: WEBHOOK_VERSIONS, description: 'The webhook setting `version`.' }) version!: WebhookVersion;
  @ApiProperty({ description: 'Whether this is the newest version (the default of a new webhook).' }) latest!: boolean;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description:
      "JSON Schema (2020-12) of the payload: the same as the `application/json` schema of transaction-api's OpenAPI " +
      '`webhooks` entry `<kind>-<version>`. Every delivered body of this kind and version validates against it.',
  })
  schema!: JsonSchema;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'An example payload (the platform’s sample event of this kind), valid against `schema`.',
  })
  example!: PayloadObject;
  @ApiProperty({ type: [CatalogEncodingDoc], description: 'The example in each content type a webhook can choose.' })
  encodings!: CatalogEncodingDoc[];
}

/** OpenAPI: a kind of event. */
export class CatalogKindDoc implements CatalogKind {
  @ApiProperty({
    enum: WEBHOOK_EVENT_TYPES,
    description: 'The kind: what a webhook selects in `events` and what its log calls `eventType`.',
  })
  kind!: EventKind;
  @ApiProperty({ description: 'Its name in the UI, e.g. "Transactions".' }) label!: string;
  @ApiProperty({ description: 'What it sends, in a sentence.' }) hint!: string;
  @ApiProperty({
    enum: PLATFORM_EVENT_TYPES,
    isArray: true,
    description:
      'The event types of this kind (`<kind>.<type>`). Each sends the same payload: the subject as it is after the ' +
      'event.',
  })
  types!: PlatformEventType[];
  @ApiProperty({ type: [CatalogVersionDoc], description: 'Every payload version, oldest first.' })
  versions!: CatalogVersionDoc[];
}

/** OpenAPI: the event catalog. */
export class EventCatalogDoc implements EventCatalog {
  @ApiProperty({ type: [CatalogKindDoc], description: 'Every kind of event, in the order of the `events` setting.' })
  data!: CatalogKindDoc[];
}
