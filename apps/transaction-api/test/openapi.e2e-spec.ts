import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { API_VERSIONS } from '#domain';
import { TransactionApiHarness } from './harness.js';

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
  components: { schemas: Record<string, Schema>; securitySchemes: Record<string, unknown> };
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

  it('lists every API version for the version parameter', () => {
    for (const path of ['/v{version}/transactions', '/v{version}/transactions/{uuid}']) {
      const version = doc.paths[path].get.parameters?.find((p) => p.name === 'version');
      expect(version?.schema?.enum).toEqual([...API_VERSIONS]);
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
});
