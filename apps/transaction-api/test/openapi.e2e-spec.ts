import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { API_VERSIONS, LATEST_API_VERSION } from '#domain';
import { TransactionApiHarness, transactionBody } from './harness.js';

interface Schema {
  properties?: Record<
    string,
    {
      description?: string;
      type?: unknown;
      $ref?: string;
      enum?: unknown;
      allOf?: unknown;
      oneOf?: unknown;
      anyOf?: unknown;
      format?: string;
    }
  >;
}
interface OpenApi {
  openapi: string;
  info: { version: string; description: string };
  paths: Record<
    string,
    Record<
      string,
      {
        parameters?: { name: string; schema?: { enum?: string[] } }[];
        responses: Record<string, unknown>;
        security?: unknown[];
      }
    >
  >;
  components: { schemas: Record<string, Schema>; securitySchemes: Record<string, { bearerFormat?: string }> };
}

interface Content {
  content: Record<string, { schema: object }>;
}

describe('OpenAPI (e2e over HTTP)', () => {
  let api: TransactionApiHarness;
  let doc: OpenApi;

  beforeAll(async () => {
    api = await TransactionApiHarness.start();
    doc = (await api.request<OpenApi>('GET', '/docs-json')).body;
  });
  afterAll(async () => {
    await api.close();
  });

  it('serves OpenAPI 3.1 at /docs-json and the UI at /docs', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const ui = await api.request('GET', '/docs');
    expect(ui.status).toBe(200);
    expect(ui.contentType).toContain('text/html');
  });

  it('documents every endpoint with its errors as problems', () => {
    const expected = {
      '/internal/merchants': ['post'],
      '/internal/merchants/{merchantId}/integrations': ['post'],
      '/internal/transactions': ['post'],
      '/internal/transactions/{uuid}/status': ['post'],
      '/internal/subscriptions': ['post'],
      '/internal/subscriptions/{id}/events': ['post'],
      '/internal/payouts': ['post'],
      '/v{version}/transactions': ['get'],
      '/v{version}/transactions/{uuid}': ['get'],
      '/v1.17/transactions': ['get'],
      '/v1.17/transactions/{uuid}': ['get'],
    };
    for (const [path, methods] of Object.entries(expected)) {
      for (const method of methods) {
        const operation = doc.paths[path]?.[method];
        expect([path, Boolean(operation)]).toEqual([path, true]);
        expect(operation.security?.length).toBeGreaterThan(0);
        for (const status of ['400', '401'])
          expect(JSON.stringify(operation.responses[status])).toContain('application/problem+json');
      }
    }
    expect(doc.paths['/internal/transactions/{uuid}/status'].post.responses['409']).toBeDefined();
    expect(doc.paths['/v{version}/transactions/{uuid}'].get.responses['404']).toBeDefined();
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['apiKey', 'apiKeyHeader', 'platform']);
  });

  it('lists every API version: the latest with paths of its own, the others for the version parameter', () => {
    // The document's version and its text take the newest from #domain (issue #33).
    expect(doc.info.version).toBe(LATEST_API_VERSION);
    expect(doc.info.description).toContain(`is ${API_VERSIONS[0]} … ${LATEST_API_VERSION}.`);
    for (const path of ['/v{version}/transactions', '/v{version}/transactions/{uuid}']) {
      const version = doc.paths[path].get.parameters?.find((p) => p.name === 'version');
      expect([...(version?.schema?.enum ?? []), LATEST_API_VERSION]).toEqual([...API_VERSIONS]);
      const latest = doc.paths[path.replace('{version}', LATEST_API_VERSION)].get;
      expect(latest.parameters?.map((p) => p.name)).not.toContain('version');
    }
  });

  it('documents every field of every schema with a type or a reference', () => {
    for (const [name, schema] of Object.entries(doc.components.schemas)) {
      for (const [field, property] of Object.entries(schema.properties ?? {})) {
        const typed =
          property.type ??
          property.$ref ??
          property.enum ??
          property.allOf ??
          property.oneOf ??
          property.anyOf ??
          property.format;
        expect([name, field, Boolean(typed)]).toEqual([name, field, true]);
      }
    }
    expect(Object.keys(doc.components.schemas.TransactionV117Doc.properties ?? {})).toContain('3dsecure');
    expect(Object.keys(doc.components.schemas.TransactionV1Doc.properties ?? {})).not.toContain('3dsecure');
    expect(doc.components.schemas.ProblemDoc.properties).toHaveProperty('errors');
  });

  it('describes the credentials as what they are (an API key, a token), not JWTs', () => {
    expect(doc.components.securitySchemes.apiKey.bearerFormat).toBe('API key');
    expect(doc.components.securitySchemes.platform.bearerFormat).toBe('opaque token');
  });

  it('validates real responses of every kind against their documented schemas, and only those', async () => {
    // A validator as a client generator would use one: the document's components, each response's schema.
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema({ $id: 'doc', components: doc.components });
    const schemaOf = (path: string, method: string, status: number) => {
      const response = doc.paths[path][method].responses[String(status)] as Content;
      const [media] = Object.values(response.content);
      return ajv.compile(JSON.parse(JSON.stringify(media.schema).replaceAll('"#/components/', '"doc#/components/')));
    };
    const check = (path: string, method: string, reply: { status: number; body: unknown }) => {
      const validate = schemaOf(path, method, reply.status);
      expect([path, reply.status, validate(reply.body) ? 'valid' : validate.errors]).toEqual([
        path,
        reply.status,
        'valid',
      ]);
    };

    const { merchantId, integrationId, apiKey } = await api.merchantWithKey();
    const authentication = { eci: '05', source: '3ds', version: '2.2.0', flow: 'Challenge' };
    const created = await api.platform<{ uuid: string }>(
      'POST',
      '/internal/transactions',
      transactionBody(merchantId, integrationId, { authentication }),
    );
    check('/internal/transactions', 'post', created);
    check('/internal/transactions', 'post', await api.platform('POST', '/internal/transactions', { amount: -1 }));
    check(
      '/internal/transactions/{uuid}/status',
      'post',
      await api.platform('POST', `/internal/transactions/${created.body.uuid}/status`, { status: 'confirmed' }),
    );
    await api.platform('POST', '/internal/transactions', transactionBody(merchantId, null));
    for (const [version, path] of [
      ['1.0', '/v{version}'],
      ['1.16', '/v{version}'],
      ['1.17', '/v1.17'],
    ]) {
      check(`${path}/transactions`, 'get', await api.merchant(apiKey, `/v${version}/transactions`));
      check(
        `${path}/transactions/{uuid}`,
        'get',
        await api.merchant(apiKey, `/v${version}/transactions/${created.body.uuid}`),
      );
    }

    // Closed shapes: each path's schema takes its version's object only, and a key no version has matches none.
    const one = (await api.merchant<Record<string, unknown>>(apiKey, `/v1.17/transactions/${created.body.uuid}`)).body;
    const { '3dsecure': _threeDSecure, ...older } = one;
    const latest = schemaOf('/v1.17/transactions/{uuid}', 'get', 200);
    const before = schemaOf('/v{version}/transactions/{uuid}', 'get', 200);
    expect([latest(one), latest(older), latest({ ...one, surprise: 1 })]).toEqual([true, false, false]);
    expect([before(older), before(one), before({ ...older, surprise: 1 })]).toEqual([true, false, false]);
  });
});
