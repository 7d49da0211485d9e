/**
 * JSON Schemas (draft 2020-12, the dialect of OpenAPI 3.1) of the webhook payloads and headers, generated from the
 * registry of webhook versions ({@link WEBHOOK_RENDERERS}).
 *
 * The schema of an event type in a version is the shape of the renderer that version uses for it: a transaction
 * renderer's is made of its fields (`transaction-fields.ts`), so a new version or field has its schemas without
 * further code; the others are described once, in {@link RENDERED_SHAPES} (the specs check every version and event
 * type).
 *
 * Every object is closed: it has exactly its listed keys, each one required — a payload always carries every key,
 * `null` where a value is empty.
 */
import { TRANSACTION_RENDERERS, API_VERSIONS } from './api-version.js';
import { encodePhpPost, WEBHOOK_MIME_TYPES, type PayloadObject } from './payload-encoding.js';
import {
  AMOUNT,
  closedObject,
  CURRENCY,
  INSTANT,
  NULLABLE_UUID,
  REFERENCE_ID,
  UUID,
  type JsonSchema,
} from './json-schema.parts.js';
import { SAMPLE_SUBJECTS } from './event-samples.js';
import {
  SUBSCRIPTION_EVENTS,
  SUBSCRIPTION_STATUSES,
  WEBHOOK_DISABLED_REASONS,
  WEBHOOK_STATES,
} from './record.shapes.js';
import {
  FIRST_TRANSACTION_FIELDS,
  TRANSACTION_FIELDS,
  type TransactionField,
  type TransactionFieldType,
} from './transaction-fields.js';
import { RENDERED_TRANSACTION_FIELDS } from './transaction.renderer.js';
import type { WebhookHeaders } from './webhook-signature.js';
import {
  isWebhookEventType,
  isWebhookVersion,
  renderPayout,
  renderSubscription,
  renderWebhook,
  renderWebhookPayload,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_RENDERERS,
  WEBHOOK_VERSIONS,
  type WebhookEventType,
  type WebhookVersion,
} from './webhook-version.js';

export type { JsonSchema } from './json-schema.parts.js';

/** The JSON Schema dialect of the schemas here (and of OpenAPI 3.1). */
export const JSON_SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';

/** How a description names a value of each field type (`with \`3dsecure\` (always present, an object or null)`). */
const VALUE_TEXTS: { readonly [T in TransactionFieldType]: string } = {
  uuid: 'a UUID',
  text: 'a string',
  enum: 'one of its values',
  slug: 'a slug',
  amount: 'an integer',
  currency: 'a currency code',
  instant: 'an instant',
  threeDSecure: 'an object',
};

/** `, as in ` the API versions whose transaction renderer is `renderer`, e.g. `, as in API 1.0–1.16`; or nothing. */
function asInApiVersions(renderer: unknown): string {
  const versions = API_VERSIONS.filter((version) => TRANSACTION_RENDERERS[version] === renderer);
  if (versions.length === 0) return '';
  return `, as in API ${versions[0]}${versions.length === 1 ? '' : `–${versions[versions.length - 1]}`}`;
}

/**
 * The closed object of a transaction renderer's fields, each with its schema (`transaction-fields.ts`), described by
 * the fields added after the first version that it has and has not, and the API versions that render it.
 */
function transactionShape(renderer: unknown): JsonSchema {
  const fields = RENDERED_TRANSACTION_FIELDS.get(renderer);
  if (fields === undefined) throw new RangeError('Not a transaction renderer');
  const later = TRANSACTION_FIELDS.filter((field) => !FIRST_TRANSACTION_FIELDS.includes(field)).map(
    (field: TransactionField) =>
      fields.includes(field)
        ? `with \`${field.key}\` (always present, ${VALUE_TEXTS[field.type]}${field.nullable ? ' or null' : ''})`
        : `without \`${field.key}\``,
  );
  return closedObject(
    `${['The transaction object', later.join(', ')].filter(Boolean).join(' ')}${asInApiVersions(renderer)}.`,
    Object.fromEntries(fields.map((field) => [field.key, field.schema])),
  );
}

/** What the subscription and payout renderers return (a transaction renderer's shape is its fields'). */
const RENDERED_SHAPES: ReadonlyMap<unknown, JsonSchema> = new Map<unknown, JsonSchema>([
  [
    renderSubscription,
    closedObject('The subscription, as it is after the event.', {
      id: UUID,
      status: { type: 'string', enum: SUBSCRIPTION_STATUSES },
      event: {
        type: ['string', 'null'],
        enum: [...SUBSCRIPTION_EVENTS, null],
        description: 'The event this webhook reports; null when the subscription was created.',
      },
      referenceId: REFERENCE_ID,
      amount: AMOUNT,
      currency: CURRENCY,
      interval: {
        type: 'string',
        description: 'Billing interval: daily, weekly, monthly, quarterly, yearly, or an ISO 8601 duration (P1M).',
      },
      integrationId: { ...NULLABLE_UUID, description: 'The integration of the subscription; null for none.' },
      createdAt: INSTANT,
      updatedAt: INSTANT,
    }),
  ],
  [
    renderPayout,
    closedObject('The payout. Payouts belong to no integration.', {
      id: UUID,
      status: { type: 'string', description: 'A new payout is `initialised`.' },
      amount: AMOUNT,
      currency: CURRENCY,
      createdAt: INSTANT,
    }),
  ],
  [
    renderWebhook,
    closedObject('One of your webhooks, as it was when the event occurred.', {
      id: UUID,
      name: { type: 'string', description: "The webhook's name." },
      url: { type: 'string', description: "The webhook's URL." },
      state: { type: 'string', enum: WEBHOOK_STATES, description: 'Its health state after the event.' },
      disabledReason: {
        type: ['string', 'null'],
        enum: [...WEBHOOK_DISABLED_REASONS, null],
        description:
          'Why it is disabled: `manual` (by you), `failing` (every attempt failed for too long), `gone` (its URL ' +
          'answered 410 Gone); null while it is enabled.',
      },
      failingSince: {
        ...INSTANT,
        type: ['string', 'null'],
        description: 'The first failed attempt after the last success; null when it is not failing.',
      },
      lastSuccessAt: { ...INSTANT, type: ['string', 'null'], description: 'Its latest successful attempt, or null.' },
      count: {
        type: ['integer', 'null'],
        minimum: 0,
        description: 'For `webhook.recovered`: the events the recover sent; null for the other events.',
      },
      occurredAt: { ...INSTANT, description: 'When the event occurred.' },
    }),
  ],
]);

/** When each event type fires. */
const EVENT_DESCRIPTIONS: { readonly [T in WebhookEventType]: string } = {
  transaction:
    'Sent when a transaction is recorded and on every change of its status, with the same payload: the transaction ' +
    'as it is now.',
  subscription:
    'Sent when a subscription is created (`event` null) and on each of its events: ' +
    `${SUBSCRIPTION_EVENTS.join(', ')}.`,
  payout: 'Sent when a payout is created.',
  webhook:
    'Operational events about your webhooks: `webhook.failing` (every attempt has failed for an hour), ' +
    '`webhook.disabled` (with its `disabledReason`), `webhook.enabled`, `webhook.recovered` (a recover finished; ' +
    '`count` the events it sent). Never sent to the webhook they are about while that one is disabled.',
};

function checkArguments(eventType: WebhookEventType, version: WebhookVersion): void {
  if (!isWebhookVersion(version)) throw new RangeError(`Unknown webhook version: ${String(version).slice(0, 20)}`);
  if (!isWebhookEventType(eventType)) {
    throw new RangeError(`Unknown webhook event type: ${String(eventType).slice(0, 20)}`);
  }
}

/**
 * The JSON Schema of the payload of an event type in a webhook version: `{"transaction": …}`, `{"subscription": …}`,
 * `{"payout": …}` or `{"webhook": …}`, closed at every level.
 *
 * @throws {RangeError} for an unknown version or event type, or a renderer without a shape in this module.
 */
export function webhookPayloadSchema(eventType: WebhookEventType, version: WebhookVersion): JsonSchema {
  checkArguments(eventType, version);
  const renderer = WEBHOOK_RENDERERS[version][eventType];
  const shape = RENDERED_TRANSACTION_FIELDS.has(renderer) ? transactionShape(renderer) : RENDERED_SHAPES.get(renderer);
  if (shape === undefined) {
    throw new RangeError(`No schema describes the ${eventType} renderer of webhook version ${version}`);
  }
  return {
    $schema: JSON_SCHEMA_DIALECT,
    title: `${eventType} webhook, version ${version}`,
    ...closedObject(EVENT_DESCRIPTIONS[eventType], { [eventType]: shape }),
  };
}

/** The example payload of an event type in a webhook version, rendered by that version's renderer. */
export function webhookPayloadExample(eventType: WebhookEventType, version: WebhookVersion): PayloadObject {
  checkArguments(eventType, version);
  return renderWebhookPayload(version, SAMPLE_SUBJECTS[eventType]) as PayloadObject;
}

/** The schema and an example of one event type's payload in one version. */
export interface WebhookPayloadDoc {
  eventType: WebhookEventType;
  version: WebhookVersion;
  /** The JSON body. */
  schema: JsonSchema;
  example: PayloadObject;
  /** What PHP rebuilds from the PHP-Post body ({@link phpPostSchema} of `schema`). */
  phpPostSchema: JsonSchema;
  /** The example as a PHP-Post body (`encodePhpPost`). */
  phpPostExample: string;
}

/** Every event type in every webhook version (versions oldest first, then event types in their order). */
export function webhookPayloadDocs(): WebhookPayloadDoc[] {
  return WEBHOOK_VERSIONS.flatMap((version) =>
    WEBHOOK_EVENT_TYPES.map((eventType) => {
      const schema = webhookPayloadSchema(eventType, version);
      const example = webhookPayloadExample(eventType, version);
      return {
        eventType,
        version,
        schema,
        example,
        phpPostSchema: phpPostSchema(schema),
        phpPostExample: encodePhpPost(example),
      };
    }),
  );
}

/** Keywords that constrain numbers only: a number's decimal text is checked by a pattern instead. */
const NUMBER_KEYWORDS = new Set(['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf']);

/** A scalar as a PHP-Post value (see `encodePhpPost`). */
function phpText(value: unknown): string {
  if (value === null) return '';
  if (typeof value === 'boolean') return value ? '1' : '0';
  return String(value);
}

/**
 * The schema of what PHP rebuilds (`$_POST`, `parse_str`) from the PHP-Post body of a payload that `schema` accepts:
 * the same tree with every leaf a string — `null` is `''`, a number its decimal text, `true`/`false` `'1'`/`'0'`.
 * Closed objects stay closed. Handles the keywords the payload schemas use.
 *
 * @throws {RangeError} for `type: array` (PHP rebuilds a list as an object keyed 0…n-1; no payload has one).
 */
export function phpPostSchema(schema: JsonSchema): JsonSchema {
  const { type, ...rest } = schema;
  if (Array.isArray(type)) {
    return { anyOf: type.map((one: unknown) => phpPostSchema({ ...rest, type: one })) };
  }
  if (type === 'null') return { const: '' };
  const out: Record<string, unknown> = {};
  for (const [keyword, value] of Object.entries(rest)) {
    if (keyword === 'properties') {
      out[keyword] = Object.fromEntries(
        Object.entries(value as Record<string, JsonSchema>).map(([key, child]) => [key, phpPostSchema(child)]),
      );
    } else if (keyword === 'anyOf' || keyword === 'oneOf' || keyword === 'allOf') {
      out[keyword] = (value as JsonSchema[]).map(phpPostSchema);
    } else if (keyword === 'if' || keyword === 'then' || keyword === 'else' || keyword === 'not') {
      out[keyword] = phpPostSchema(value as JsonSchema);
    } else if (keyword === 'const') {
      out[keyword] = phpText(value);
    } else if (keyword === 'enum') {
      out[keyword] = (value as unknown[]).map(phpText);
    } else if (!NUMBER_KEYWORDS.has(keyword)) {
      out[keyword] = value;
    }
  }
  switch (type) {
    case undefined:
    case 'object':
    case 'string':
      return type === undefined ? out : { type, ...out };
    case 'integer':
      return { type: 'string', pattern: '^-?(0|[1-9][0-9]*)$', ...out };
    case 'number':
      return { type: 'string', pattern: '^-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][-+]?[0-9]+)?$', ...out };
    case 'boolean':
      return { enum: ['1', '0'], ...out };
    default:
      throw new RangeError(`phpPostSchema: type ${JSON.stringify(type)} has no PHP-Post form here`);
  }
}

/** The headers of every delivery attempt, each with its schema (keys as `buildWebhookHeaders` sends them). */
export const WEBHOOK_HEADER_SCHEMAS: { readonly [H in keyof WebhookHeaders]: JsonSchema } = {
  'content-type': {
    type: 'string',
    enum: Object.values(WEBHOOK_MIME_TYPES),
    description:
      'The webhook\'s content type: `application/json`, or `application/x-www-form-urlencoded` for "PHP-Post".',
  },
  'webhook-id': {
    type: 'string',
    format: 'uuid',
    description: 'One id per event and webhook, the same on every repeat: deduplicate on it.',
  },
  'webhook-timestamp': {
    type: 'string',
    pattern: '^[0-9]+$',
    description: 'Unix seconds of this attempt (signed with the body: reject old ones to stop replays).',
  },
  'webhook-signature': {
    type: 'string',
    pattern: '^v1,[A-Za-z0-9+/]{43}=( v1,[A-Za-z0-9+/]{43}=)*$',
    description:
      'Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the ' +
      'base64-decoded part of the secret after `whsec_`. During a secret rotation one signature per valid secret, ' +
      'newest first, space-separated: accept the request when any of them matches.',
  },
  'x-webhook-signature': {
    type: 'string',
    pattern: '^[0-9a-f]{64}$',
    description:
      'For receivers built for the older scheme: lowercase hex HMAC-SHA256 of the body, keyed with the whole ' +
      'secret string as UTF-8 (the current secret only).',
  },
};
