import { describe, expect, it } from '@jest/globals';
import { API_VERSIONS, THREE_D_SECURE_SINCE_API_VERSION, TRANSACTION_RENDERERS } from './api-version.js';
import { FIRST_TRANSACTION_FIELDS, TRANSACTION_FIELDS, transactionField } from './transaction-fields.js';
import { RENDERED_TRANSACTION_FIELDS } from './transaction.renderer.js';
import { WEBHOOK_RENDERERS, WEBHOOK_VERSIONS } from './webhook-version.js';
import { transactionRecord } from '../test/fixtures.js';

/** The fields whose `since` is at or before `version` of `versions`, in the table's order. */
const keysSince = (
  versions: readonly string[],
  version: string,
  since: (field: (typeof TRANSACTION_FIELDS)[number]) => string,
) =>
  TRANSACTION_FIELDS.filter((field) => versions.indexOf(since(field)) <= versions.indexOf(version)).map(
    (field) => field.key,
  );

describe('the fields of the transaction (transaction-fields.ts)', () => {
  it('names each key, record key and column once', () => {
    for (const name of ['key', 'record', 'column'] as const) {
      const names = TRANSACTION_FIELDS.map((field) => field[name]);
      expect(new Set(names).size).toBe(names.length);
    }
  });

  it('dates each field by a served read-API and webhook version', () => {
    for (const field of TRANSACTION_FIELDS) {
      expect(API_VERSIONS).toContain(field.since.api);
      expect(WEBHOOK_VERSIONS).toContain(field.since.webhook);
    }
    expect(FIRST_TRANSACTION_FIELDS.map((field) => field.since)).toEqual(
      FIRST_TRANSACTION_FIELDS.map(() => ({ api: API_VERSIONS[0], webhook: WEBHOOK_VERSIONS[0] })),
    );
  });

  it.each(API_VERSIONS.map((version) => [version]))(
    'API %s renders exactly the fields since it, in order',
    (version) => {
      expect(Object.keys(TRANSACTION_RENDERERS[version](transactionRecord))).toEqual(
        keysSince(API_VERSIONS, version, (field) => field.since.api),
      );
    },
  );

  it.each(WEBHOOK_VERSIONS.map((version) => [version]))(
    'webhook version %s renders exactly the fields since it, in order',
    (version) => {
      const render = WEBHOOK_RENDERERS[version].transaction;
      expect(Object.keys(render(transactionRecord))).toEqual(
        keysSince(WEBHOOK_VERSIONS, version, (field) => field.since.webhook),
      );
      expect(RENDERED_TRANSACTION_FIELDS.get(render)?.map((field) => field.key)).toEqual(
        Object.keys(render(transactionRecord)),
      );
    },
  );

  it('dates 3dsecure as the read-API registry does', () => {
    expect(transactionField('3dsecure').since.api).toBe(THREE_D_SECURE_SINCE_API_VERSION);
  });

  it('gives every enum field its values, in its schema and OpenAPI property too', () => {
    for (const field of TRANSACTION_FIELDS.filter((one) => one.type === 'enum')) {
      const values = (field as { values?: readonly string[] }).values;
      expect(values?.length).toBeGreaterThan(0);
      expect(field.schema.enum).toBe(values);
      expect(field.openApi.enum).toBe(values);
    }
  });

  it('marks as nullable exactly the fields whose schema allows null', () => {
    for (const field of TRANSACTION_FIELDS) {
      expect([field.key, JSON.stringify(field.schema).includes('"null"')]).toEqual([field.key, field.nullable]);
    }
  });
});
