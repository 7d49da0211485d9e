import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsInt,
  IsString,
  IsUUID,
  Max,
  Min,
  ValidateIf,
} from 'class-validator';
import { WEBHOOK_CONTENT_TYPES, WEBHOOK_EVENT_TYPES, WEBHOOK_VERSIONS } from '#domain';
import { TextLength } from '#platform';
import { IsWebhookUrl } from './is-webhook-url.decorator.js';

/**
 * The validation rules of every webhook setting, shared by create and update (each rule in words:
 * docs/webhook-config.md, Settings and their validation). Each message starts with the field name (the validation
 * pipe moves it into `errors[].field`). The checks that need I/O (where the URL points, whose integration it is)
 * follow in WebhookSettingsValidator once these pass.
 */
const list = (values: readonly string[]) => values.join(', ');
const trimmed = Transform(({ value }) => (typeof value === 'string' ? value.trim() : value));
/** An optional field: validated whenever it is present, including an explicit null (which is then refused). */
export const optional = ValidateIf((_object, value) => value !== undefined);
/** A required field: absent or null is refused with a message naming it. */
export const required = (field: string) => IsDefined({ message: `${field} is required` });

/** The rules of each setting's value; each DTO adds `optional` or `required(...)`. */
export const WebhookRules = {
  name: [
    trimmed,
    IsString({ message: 'name must be text' }),
    TextLength(1, 200, { message: 'name must be between 1 and 200 characters long' }),
  ],
  url: [IsWebhookUrl()],
  contentType: [IsIn(WEBHOOK_CONTENT_TYPES, { message: `contentType must be one of ${list(WEBHOOK_CONTENT_TYPES)}` })],
  version: [IsIn(WEBHOOK_VERSIONS, { message: `version must be one of ${list(WEBHOOK_VERSIONS)}` })],
  retryOnError: [IsBoolean({ message: 'retryOnError must be true or false' })],
  events: [
    IsArray({ message: `events must be a list of ${list(WEBHOOK_EVENT_TYPES)}` }),
    ArrayMinSize(1, { message: `events must contain at least one of ${list(WEBHOOK_EVENT_TYPES)}` }),
    ArrayMaxSize(WEBHOOK_EVENT_TYPES.length * 2, { message: 'events has too many entries' }),
    IsIn(WEBHOOK_EVENT_TYPES, { each: true, message: `events may only contain ${list(WEBHOOK_EVENT_TYPES)}` }),
  ],
  enabled: [IsBoolean({ message: 'enabled must be true or false' })],
  /** null (or absent on create) = no limit. */
  maxPerSecond: [
    ValidateIf((_object, value) => value !== undefined && value !== null),
    IsInt({ message: 'maxPerSecond must be a whole number from 1 to 1000, or null for no limit' }),
    Min(1, { message: 'maxPerSecond must be a whole number from 1 to 1000, or null for no limit' }),
    Max(1000, { message: 'maxPerSecond must be a whole number from 1 to 1000, or null for no limit' }),
  ],
  skipSupersededRepeats: [IsBoolean({ message: 'skipSupersededRepeats must be true or false' })],
  /** null (or absent on create) = all events of the merchant. */
  integrationId: [
    ValidateIf((_object, value) => value !== undefined && value !== null),
    IsUUID('all', { message: 'integrationId must be the id of one of your integrations, or null for all events' }),
  ],
} satisfies Record<string, PropertyDecorator[]>;

export const applyRules =
  (...rules: PropertyDecorator[]): PropertyDecorator =>
  (target, key) => {
    for (const rule of rules) rule(target, key);
  };
