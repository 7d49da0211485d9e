import { Injectable } from '@nestjs/common';
import {
  encodePayload,
  EVENT_KIND_OPTIONS,
  eventKindOf,
  LATEST_WEBHOOK_VERSION,
  PLATFORM_EVENT_TYPES,
  phpPostSchema,
  WEBHOOK_CONTENT_TYPES,
  WEBHOOK_MIME_TYPES,
  WEBHOOK_VERSIONS,
  webhookPayloadExample,
  webhookPayloadSchema,
  type EventKind,
  type JsonSchema,
  type WebhookContentType,
  type WebhookVersion,
} from '#domain';
import type { CatalogKind, CatalogVersion, EventCatalog } from './event-catalog.view.js';

/**
 * What each content type's receiver rebuilds from a body of a payload `schema` accepts. A mapped type: a content type
 * added to payload-encoding.ts fails to compile here until it says.
 */
const PARSED_SCHEMA: { readonly [C in WebhookContentType]: (schema: JsonSchema) => JsonSchema } = {
  json: (schema) => schema,
  'php-post': phpPostSchema,
};

/**
 * The event catalog (`GET /api/event-types`), derived from libs/domain alone: the kinds and their event types
 * (event-kinds.ts), the payload versions (webhook-version.ts), the payload schemas and examples (webhook-schema.ts,
 * the ones transaction-api's OpenAPI `webhooks` publish; the examples render event-samples.ts) and the content types
 * (payload-encoding.ts). A kind, version or content type added there appears here without a change. It is the same
 * for every merchant and never changes while the process runs, so it is built once.
 */
@Injectable()
export class EventCatalogService {
  private readonly catalog: EventCatalog = Object.freeze({ data: EVENT_KIND_OPTIONS.map(catalogKind) });

  /** Every kind of event, in canonical order, each with its event types and payload versions (oldest first). */
  list(): EventCatalog {
    return this.catalog;
  }
}

function catalogKind({ type: kind, label, hint }: { type: EventKind; label: string; hint: string }): CatalogKind {
  return {
    kind,
    label,
    hint,
    types: PLATFORM_EVENT_TYPES.filter((type) => eventKindOf(type) === kind),
    versions: WEBHOOK_VERSIONS.map((version) => catalogVersion(kind, version)),
  };
}

function catalogVersion(kind: EventKind, version: WebhookVersion): CatalogVersion {
  const schema = webhookPayloadSchema(kind, version);
  const example = webhookPayloadExample(kind, version);
  return {
    version,
    latest: version === LATEST_WEBHOOK_VERSION,
    schema,
    example,
    encodings: WEBHOOK_CONTENT_TYPES.map((contentType) => ({
      contentType,
      mediaType: WEBHOOK_MIME_TYPES[contentType],
      body: encodePayload(contentType, example).body,
      schema: PARSED_SCHEMA[contentType](schema),
    })),
  };
}
