import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { WEBHOOK_EVENT_TYPES, WEBHOOK_VERSIONS } from '#domain';
import { parsePhpPost } from '#testing';
import { TransactionApiHarness, transactionBody } from './harness.js';

interface MediaType {
  schema: Record<string, unknown>;
  example: unknown;
}
interface WebhookOperation {
  operationId: string;
  parameters: { name: string; in: string; required: boolean; schema: object }[];
  requestBody: { required: boolean; content: Record<string, MediaType> };
  responses: Record<string, { description: string }>;
}
interface OpenApi {
  webhooks?: Record<string, { post?: WebhookOperation }>;
}

describe('webhook payloads in the OpenAPI document (e2e over HTTP)', () => {
  let api: TransactionApiHarness;
  let webhooks: Record<string, { post?: WebhookOperation }>;
  // As a client generator would validate: JSON Schema 2020-12, the dialect of OpenAPI 3.1, with its formats.
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  const valid = (schema: object, value: unknown) => {
    const validate = ajv.compile(schema);
    return validate(value) ? 'valid' : validate.errors;
  };
  const operation = (name: string) => webhooks[name]!.post!;

  beforeAll(async () => {
    api = await TransactionApiHarness.start();
    webhooks = (await api.request<OpenApi>('GET', '/docs-json')).body.webhooks ?? {};
  });
  afterAll(async () => {
    await api.close();
  });

  const entries = WEBHOOK_VERSIONS.flatMap((version) => WEBHOOK_EVENT_TYPES.map((type) => `${type}-${version}`));

  it('has one webhook per event type and payload version, each a POST in both content types with its headers', () => {
    expect(Object.keys(webhooks).sort()).toStrictEqual([...entries].sort());
    for (const name of entries) {
      const post = operation(name);
      expect([name, Object.keys(post.requestBody.content)]).toStrictEqual([
        name,
        ['application/json', 'application/x-www-form-urlencoded'],
      ]);
      expect(post.parameters.map((p) => [p.name, p.in, p.required])).toStrictEqual(
        ['content-type', 'webhook-id', 'webhook-timestamp', 'webhook-signature', 'x-webhook-signature'].map((n) => [
          n,
          'header',
          true,
        ]),
      );
      expect(Object.keys(post.responses)).toStrictEqual(['2XX', 'default']);
    }
  });

  it.each(entries)('%s: the JSON example validates against its schema, and a changed one does not', (name) => {
    const { schema, example } = operation(name).requestBody.content['application/json']!;
    expect(valid(schema, example)).toBe('valid');
    const [type, object] = Object.entries(example as Record<string, Record<string, unknown>>)[0]!;
    expect(valid(schema, { [type]: { ...object, extra: null } })).not.toBe('valid');
    // Without its first key (every key is required).
    const missing = Object.fromEntries(Object.entries(object).slice(1));
    expect(valid(schema, { [type]: missing })).not.toBe('valid');
  });

  it.each(entries)('%s: the PHP-Post example, as PHP rebuilds it, validates against its schema', async (name) => {
    const { schema, example } = operation(name).requestBody.content['application/x-www-form-urlencoded']!;
    expect(typeof example).toBe('string');
    expect(valid(schema, example)).toBe('valid');
    const post = await parsePhpPost(example as string);
    expect(valid(schema.contentSchema as object, post)).toBe('valid');
    // The same tree as the JSON example, with every leaf as text.
    const json = operation(name).requestBody.content['application/json']!.example;
    expect(Object.keys(post as object)).toStrictEqual(Object.keys(json as object));
    expect(valid(schema.contentSchema as object, { ...(post as object), extra: '' })).not.toBe('valid');
  });

  it('2026-08-20 transactions have 3dsecure, 2025-01-15 ones do not: as the read API’s 1.17 and 1.16 objects', async () => {
    const { merchantId, integrationId, apiKey } = await api.merchantWithKey();
    const created = await api.platform<{ uuid: string }>(
      'POST',
      '/internal/transactions',
      transactionBody(merchantId, integrationId, {
        authentication: { eci: '5', source: '3ds', version: '2.2', flow: 'FRICTIONLESS' },
      }),
    );
    expect(created.status).toBe(201);
    const read = async (version: string) =>
      (await api.merchant(apiKey, `/v${version}/transactions/${created.body.uuid}`)).body;
    const newest = operation('transaction-2026-08-20').requestBody.content['application/json']!.schema;
    const oldest = operation('transaction-2025-01-15').requestBody.content['application/json']!.schema;
    const [v117, v116] = [await read('1.17'), await read('1.16')];
    expect(v117['3dsecure']).toStrictEqual({ eci: '05', source: '3ds', version: '2.2.0', flow: 'frictionless' });
    expect(valid(newest, { transaction: v117 })).toBe('valid');
    expect(valid(oldest, { transaction: v116 })).toBe('valid');
    expect(valid(oldest, { transaction: v117 })).not.toBe('valid');
    expect(valid(newest, { transaction: v116 })).not.toBe('valid');
  });
});
