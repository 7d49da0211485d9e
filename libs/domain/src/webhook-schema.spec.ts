import { describe, expect, it } from '@jest/globals';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { payoutRecord, subscriptionRecord, transactionRecord, webhookRecord } from '../test/fixtures.js';
import { phpParseStr } from '../test/php.js';
import { encodePhpPost, type PayloadObject } from './payload-encoding.js';
import { TRANSACTION_STATUSES, TRANSACTION_TYPES } from './payment.constants.js';
import { SUBSCRIPTION_EVENTS, SUBSCRIPTION_STATUSES, type TransactionRecord } from './record.shapes.js';
import { buildWebhookHeaders, generateWebhookSecret } from './webhook-signature.js';
import {
  JSON_SCHEMA_DIALECT,
  WEBHOOK_HEADER_SCHEMAS,
  phpPostSchema,
  webhookPayloadDocs,
  webhookPayloadExample,
  webhookPayloadSchema,
  type JsonSchema,
} from './webhook-schema.js';
import {
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_VERSIONS,
  renderWebhookPayload,
  type WebhookEventType,
  type WebhookSubject,
  type WebhookVersion,
} from './webhook-version.js';

/** Strict: a keyword ajv does not know, or one that cannot apply, fails the compilation. */
const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
addFormats.default(ajv);
const compiled = new Map<JsonSchema, ReturnType<typeof ajv.compile>>();

/** `'valid'`, or the errors (as readable as a failed expectation can show them). */
function check(schema: JsonSchema, value: unknown): unknown {
  let validate = compiled.get(schema);
  if (!validate) compiled.set(schema, (validate = ajv.compile(schema)));
  return validate(value) ? 'valid' : validate.errors?.map((e) => `${e.instancePath} ${e.message}`);
}

const payloadCheck = (version: WebhookVersion, subject: WebhookSubject) =>
  check(webhookPayloadSchema(subject.type, version), renderWebhookPayload(version, subject));

/** Sample records covering every value the renderers can put in each key. */
const transactions: TransactionRecord[] = [
  transactionRecord,
  { ...transactionRecord, threeDSecure: null, referenceId: null, integrationId: null },
  { ...transactionRecord, threeDSecure: undefined },
  {
    ...transactionRecord,
    paymentMethod: 'mastercard',
    threeDSecure: { eci: '02', source: 'token', version: null, flow: null },
  },
  { ...transactionRecord, threeDSecure: { eci: '07', source: '3ds', version: null, flow: null } },
  { ...transactionRecord, threeDSecure: { eci: '06', source: '3ds', version: '2.1.0', flow: 'frictionless' } },
  { ...transactionRecord, type: 'pos', paymentMethod: 'bank-transfer', threeDSecure: null },
  ...TRANSACTION_STATUSES.map((status) => ({ ...transactionRecord, status })),
  ...TRANSACTION_TYPES.map((type) => ({ ...transactionRecord, type, threeDSecure: null })),
];
const subscriptions = [
  subscriptionRecord,
  { ...subscriptionRecord, event: null, referenceId: null, integrationId: '6f1c1d34-0a3b-4bcb-9c43-2d7e0b8f4c10' },
  ...SUBSCRIPTION_EVENTS.map((event) => ({ ...subscriptionRecord, event })),
  ...SUBSCRIPTION_STATUSES.map((status) => ({ ...subscriptionRecord, status, interval: 'monthly' })),
];
const subjects: WebhookSubject[] = [
  ...transactions.map((transaction) => ({ type: 'transaction' as const, transaction })),
  ...subscriptions.map((subscription) => ({ type: 'subscription' as const, subscription })),
  { type: 'payout', payout: payoutRecord },
  { type: 'webhook', webhook: webhookRecord },
  { type: 'webhook', webhook: { ...webhookRecord, state: 'failing', disabledReason: null, count: null } },
  {
    type: 'webhook',
    webhook: {
      ...webhookRecord,
      state: 'healthy',
      disabledReason: null,
      failingSince: null,
      lastSuccessAt: null,
      count: 3,
    },
  },
];

/** The payload with one key changed (`undefined` removes it) at a path of keys. */
function changed(payload: PayloadObject, path: string[], value: unknown): unknown {
  const copy = structuredClone(payload) as Record<string, unknown>;
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string, unknown>;
  if (value === undefined) delete node[path[path.length - 1]!];
  else node[path[path.length - 1]!] = value;
  return copy;
}

describe('webhook payload schemas', () => {
  it('describe every event type of every version, as JSON Schema 2020-12', () => {
    const docs = webhookPayloadDocs();
    expect(docs.map((doc) => `${doc.eventType}-${doc.version}`)).toStrictEqual(
      WEBHOOK_VERSIONS.flatMap((version) => WEBHOOK_EVENT_TYPES.map((type) => `${type}-${version}`)),
    );
    for (const doc of docs) {
      expect(doc.schema.$schema).toBe(JSON_SCHEMA_DIALECT);
      expect(doc.schema.required).toStrictEqual([doc.eventType]);
    }
  });

  it.each(webhookPayloadDocs().map((doc) => [`${doc.eventType}-${doc.version}`, doc] as const))(
    '%s: the example is rendered by the registry and validates; its keys are the schema’s, in order',
    (_name, doc) => {
      expect(doc.example).toStrictEqual(webhookPayloadExample(doc.eventType, doc.version));
      expect(check(doc.schema, doc.example)).toBe('valid');
      const object = (doc.schema.properties as Record<string, JsonSchema>)[doc.eventType]!;
      expect(Object.keys(object.properties as object)).toStrictEqual(
        Object.keys((doc.example as Record<string, object>)[doc.eventType]!),
      );
      expect(object.required).toStrictEqual(Object.keys(object.properties as object));
      expect(object.additionalProperties).toBe(false);
      expect(doc.phpPostExample).toBe(encodePhpPost(doc.example));
    },
  );

  it('2026-08-20 transactions carry 3dsecure (object or null), 2025-01-15 ones never', () => {
    const example = webhookPayloadExample('transaction', '2026-08-20');
    const newest = webhookPayloadSchema('transaction', '2026-08-20');
    const oldest = webhookPayloadSchema('transaction', '2025-01-15');
    expect(check(newest, example)).toBe('valid');
    expect(check(newest, changed(example, ['transaction', '3dsecure'], null))).toBe('valid');
    expect(check(newest, changed(example, ['transaction', '3dsecure'], undefined))).not.toBe('valid');
    expect(check(oldest, example)).not.toBe('valid');
    expect(check(oldest, changed(example, ['transaction', '3dsecure'], undefined))).toBe('valid');
  });

  it.each(WEBHOOK_VERSIONS)('%s: a webhook event has its states, reasons and nullable times only', (version) => {
    const schema = webhookPayloadSchema('webhook', version);
    const example = webhookPayloadExample('webhook', version);
    expect(check(schema, example)).toBe('valid');
    expect(check(schema, changed(example, ['webhook', 'failingSince'], null))).toBe('valid');
    expect(check(schema, changed(example, ['webhook', 'count'], 12))).toBe('valid');
    expect(check(schema, changed(example, ['webhook', 'state'], 'asleep'))).not.toBe('valid');
    expect(check(schema, changed(example, ['webhook', 'disabledReason'], 'tired'))).not.toBe('valid');
    expect(check(schema, changed(example, ['webhook', 'count'], -1))).not.toBe('valid');
    expect(check(schema, changed(example, ['webhook', 'secret'], 'whsec_x'))).not.toBe('valid');
    expect(check(schema, changed(example, ['webhook', 'occurredAt'], null))).not.toBe('valid');
  });

  it.each(WEBHOOK_VERSIONS)('%s: rendered payloads of every sample record validate', (version) => {
    for (const subject of subjects) {
      expect([subject, payloadCheck(version, subject)]).toStrictEqual([subject, 'valid']);
    }
  });

  it.each(webhookPayloadDocs().map((doc) => [`${doc.eventType}-${doc.version}`, doc] as const))(
    '%s: an extra or a missing key, at any level, does not validate',
    (_name, doc) => {
      const type = doc.eventType;
      const object = (doc.example as Record<string, Record<string, unknown>>)[type]!;
      expect(check(doc.schema, { ...doc.example, extra: 1 })).not.toBe('valid');
      expect(check(doc.schema, {})).not.toBe('valid');
      expect(check(doc.schema, changed(doc.example, [type, 'surprise'], 'x'))).not.toBe('valid');
      for (const key of Object.keys(object)) {
        expect([key, check(doc.schema, changed(doc.example, [type, key], undefined))]).not.toEqual([key, 'valid']);
      }
      if (object['3dsecure']) {
        expect(check(doc.schema, changed(doc.example, [type, '3dsecure', 'cavv'], 'AAABBB'))).not.toBe('valid');
        expect(check(doc.schema, changed(doc.example, [type, '3dsecure', 'flow'], undefined))).not.toBe('valid');
      }
    },
  );

  it('holds the value rules: 3dsecure, payment method slug, status, amount, currency, ids and instants', () => {
    const schema = webhookPayloadSchema('transaction', '2026-08-20');
    const example = webhookPayloadExample('transaction', '2026-08-20');
    const invalid: Array<[string[], unknown]> = [
      [['transaction', '3dsecure', 'eci'], '5'],
      [['transaction', '3dsecure', 'source'], '3DS'],
      [['transaction', '3dsecure', 'version'], '2.2'],
      [['transaction', '3dsecure', 'flow'], 'Challenge'],
      [['transaction', '3dsecure'], { eci: '05', source: 'token', version: '2.2.0', flow: null }],
      [['transaction', '3dsecure'], { eci: '05', source: 'token', version: null, flow: 'challenge' }],
      [['transaction', 'paymentMethod'], 'Visa'],
      [['transaction', 'paymentMethod'], 'bank--transfer'],
      [['transaction', 'paymentMethod'], 'a'.repeat(41)],
      [['transaction', 'status'], 'paid'],
      [['transaction', 'type'], 'moto'],
      [['transaction', 'amount'], 19.9],
      [['transaction', 'amount'], '1990'],
      [['transaction', 'currency'], 'chf'],
      [['transaction', 'uuid'], 'not-a-uuid'],
      [['transaction', 'integrationId'], ''],
      [['transaction', 'createdAt'], '2026-11-22T11:00:00+01:00'],
      [['transaction', 'referenceId'], 4711],
    ];
    for (const [path, value] of invalid) {
      expect([path, value, check(schema, changed(example, path, value))]).not.toEqual([path, value, 'valid']);
    }
    const token = { eci: '02', source: 'token', version: null, flow: null };
    expect(check(schema, changed(example, ['transaction', '3dsecure'], token))).toBe('valid');
    expect(check(schema, changed(example, ['transaction', 'paymentMethod'], 'a'.repeat(40)))).toBe('valid');
  });

  it('rejects an unknown version or event type', () => {
    expect(() => webhookPayloadSchema('transaction', '2024-01-01' as WebhookVersion)).toThrow(
      new RangeError('Unknown webhook version: 2024-01-01'),
    );
    expect(() => webhookPayloadExample('refund' as WebhookEventType, '2026-08-20')).toThrow(
      new RangeError('Unknown webhook event type: refund'),
    );
  });
});

describe('phpPostSchema — what PHP rebuilds from a PHP-Post body', () => {
  it('accepts what real PHP (parse_str) makes of every rendered payload of every version, and rejects drift', async () => {
    const cases = WEBHOOK_VERSIONS.flatMap((version) =>
      subjects.map((subject) => ({
        schema: phpPostSchema(webhookPayloadSchema(subject.type, version)),
        body: encodePhpPost(renderWebhookPayload(version, subject) as PayloadObject),
      })),
    );
    // A transaction of the newest version, drifted: an extra key, a missing key, an empty value where a value is
    // never null, and a value the rules refuse.
    const base = cases.find((c) => c.body.includes('3dsecure'))!;
    const drifted = [
      `${base.body}&transaction[surprise]=1`,
      base.body.replace(/&transaction\[psp\]=[^&]*/, ''),
      base.body.replace(/transaction\[amount\]=[0-9]+/, 'transaction[amount]='),
      base.body.replace(/transaction\[3dsecure\]\[eci\]=05/, 'transaction[3dsecure][eci]=5'),
    ];
    expect(drifted.filter((body) => body === base.body)).toStrictEqual([]);
    const parsed = await phpParseStr([...cases.map((c) => c.body), ...drifted]);
    cases.forEach((c, index) => expect([c.body, check(c.schema, parsed[index])]).toStrictEqual([c.body, 'valid']));
    drifted.forEach((body, index) =>
      expect([body, check(base.schema, parsed[cases.length + index])]).not.toEqual([body, 'valid']),
    );
  });

  it('turns every leaf into text: null empty, numbers as decimal text, booleans 1/0; objects stay closed', () => {
    const schema = phpPostSchema({
      type: 'object',
      properties: {
        count: { type: 'integer', minimum: 1 },
        ratio: { type: 'number', maximum: 2 },
        flag: { type: 'boolean' },
        kind: { const: null },
        level: { enum: [1, false, 'x'] },
        note: { type: ['string', 'null'], maxLength: 3 },
        choice: { oneOf: [{ type: 'string' }, { not: { type: 'string' } }] },
        both: {
          type: 'string',
          allOf: [{ minLength: 1 }],
          if: { const: 'a' },
          then: { minLength: 1 },
          else: { minLength: 2 },
        },
      },
      required: ['count', 'ratio', 'flag', 'note'],
      additionalProperties: false,
    });
    expect(check(schema, { count: '12', ratio: '-0.5', flag: '1', kind: '', level: '1', note: '', both: 'a' })).toBe(
      'valid',
    );
    expect(check(schema, { count: '-3', ratio: '1e3', flag: '0', note: 'abc', level: 'x' })).toBe('valid');
    for (const wrong of [
      { count: '1.5', ratio: '1', flag: '1', note: '' },
      { count: '1', ratio: 'x', flag: '1', note: '' },
      { count: '1', ratio: '1', flag: 'true', note: '' },
      { count: '1', ratio: '1', flag: '1', note: 'abcd' },
      { count: '1', ratio: '1', flag: '1', note: '', extra: '' },
      { count: 1, ratio: '1', flag: '1', note: '' },
    ]) {
      expect([wrong, check(schema, wrong)]).not.toEqual([wrong, 'valid']);
    }
    expect(() => phpPostSchema({ type: 'array', items: { type: 'string' } })).toThrow(RangeError);
  });
});

describe('WEBHOOK_HEADER_SCHEMAS', () => {
  it('accept the headers of a delivery attempt, during a secret rotation too, in both content types', () => {
    for (const contentType of ['json', 'php-post'] as const) {
      const headers = buildWebhookHeaders({
        webhookId: '019a5e1c-2b7d-7c3e-9f10-4d2a6b8c0e11',
        timestamp: new Date('2026-11-22T10:00:00Z'),
        body: '{"payout":{}}',
        secrets: [generateWebhookSecret(), generateWebhookSecret()],
        contentType,
      });
      expect(Object.keys(WEBHOOK_HEADER_SCHEMAS).sort()).toStrictEqual(Object.keys(headers).sort());
      for (const [name, value] of Object.entries(headers)) {
        expect([name, check(WEBHOOK_HEADER_SCHEMAS[name as keyof typeof headers], value)]).toStrictEqual([
          name,
          'valid',
        ]);
      }
    }
    expect(check(WEBHOOK_HEADER_SCHEMAS['x-webhook-signature'], 'AB'.repeat(32))).not.toBe('valid');
    expect(check(WEBHOOK_HEADER_SCHEMAS['webhook-signature'], 'v1,abc')).not.toBe('valid');
    expect(check(WEBHOOK_HEADER_SCHEMAS['content-type'], 'text/plain')).not.toBe('valid');
  });
});
