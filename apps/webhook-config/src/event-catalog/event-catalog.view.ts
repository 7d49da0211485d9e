import type {
  EventKind,
  JsonSchema,
  PayloadObject,
  PlatformEventType,
  WebhookContentType,
  WebhookMimeType,
  WebhookVersion,
} from '#domain';

/** One payload version of a kind in one content type: the exact body of the example, and what a receiver parses. */
export interface CatalogEncoding {
  contentType: WebhookContentType;
  mediaType: WebhookMimeType;
  /** The example as it is sent (the bytes signed). */
  body: string;
  /** What the receiver's parser rebuilds from such a body (JSON: the payload; PHP-Post: `$_POST`). */
  schema: JsonSchema;
}

/** One payload version of a kind: its schema and example, as transaction-api's OpenAPI `webhooks` publish them. */
export interface CatalogVersion {
  version: WebhookVersion;
  latest: boolean;
  schema: JsonSchema;
  example: PayloadObject;
  encodings: CatalogEncoding[];
}

/** A kind of event with its event types and every payload version. */
export interface CatalogKind {
  kind: EventKind;
  label: string;
  hint: string;
  types: PlatformEventType[];
  versions: CatalogVersion[];
}

export interface EventCatalog {
  data: CatalogKind[];
}
