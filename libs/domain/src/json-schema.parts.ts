/**
 * The JSON Schema (2020-12) parts the public schemas share: the transaction's fields (`transaction-fields.ts`) and
 * the other payloads (`webhook-schema.ts`).
 */

/** A JSON Schema (2020-12) as a plain object. */
export type JsonSchema = { readonly [keyword: string]: unknown };

/** An object with exactly these properties, every one required. */
export function closedObject(description: string, properties: Record<string, JsonSchema>): JsonSchema {
  return { type: 'object', description, properties, required: Object.keys(properties), additionalProperties: false };
}

export const UUID: JsonSchema = { type: 'string', format: 'uuid' };
export const NULLABLE_UUID: JsonSchema = { type: ['string', 'null'], format: 'uuid' };
const NULLABLE_TEXT: JsonSchema = { type: ['string', 'null'] };
export const INSTANT: JsonSchema = {
  type: 'string',
  format: 'date-time',
  pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$',
  description: 'ISO 8601 in UTC with milliseconds.',
};
export const AMOUNT: JsonSchema = {
  type: 'integer',
  minimum: 1,
  description: 'Minor units of the currency (1990 = 19.90).',
};
export const CURRENCY: JsonSchema = { type: 'string', pattern: '^[A-Z]{3}$', description: 'ISO 4217 currency code.' };
export const REFERENCE_ID: JsonSchema = {
  ...NULLABLE_TEXT,
  description: "The merchant's reference (e.g. the order number).",
};

export const THREE_D_SECURE: JsonSchema = {
  description:
    'The result of the 3-D Secure authentication of an e-commerce card payment, or null (not a card payment, not ' +
    'collected, or not readable). Never a cryptogram or a 3-D Secure transaction id.',
  anyOf: [
    {
      ...closedObject('Exactly the keys eci, source, version, flow.', {
        eci: { type: 'string', pattern: '^[0-9]{2}$', description: 'Electronic Commerce Indicator, two digits.' },
        source: {
          type: 'string',
          enum: ['3ds', 'token'],
          description: '`3ds`: a 3-D Secure authentication; `token`: a network token cryptogram.',
        },
        version: {
          type: ['string', 'null'],
          pattern: '^[0-9]+\\.[0-9]+\\.[0-9]+$',
          description: 'The 3-D Secure protocol version in three parts; null for `token` or when not numeric.',
        },
        flow: {
          type: ['string', 'null'],
          enum: ['frictionless', 'challenge', null],
          description: 'How the issuer authenticated; null for `token` or when unknown.',
        },
      }),
      if: { properties: { source: { const: 'token' } }, required: ['source'] },
      then: { properties: { version: { type: 'null' }, flow: { type: 'null' } } },
    },
    { type: 'null' },
  ],
};
