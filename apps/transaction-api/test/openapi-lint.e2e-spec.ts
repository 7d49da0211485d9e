import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { lintOpenApi } from '#testing';
import { TransactionApiHarness } from './harness.js';

describe('OpenAPI lint (e2e over HTTP)', () => {
  let api: TransactionApiHarness;

  beforeAll(async () => {
    api = await TransactionApiHarness.start();
  });
  afterAll(async () => {
    await api.close();
  });

  it('serves a document clean under `redocly lint` (recommended rules), its webhooks included', async () => {
    const doc = await api.request<{ webhooks?: object }>('GET', '/docs-json');
    expect(doc.status).toBe(200);
    expect(Object.keys(doc.body.webhooks ?? {}).length).toBeGreaterThan(0);
    // The findings themselves are the failure message: rule, place and text of each.
    expect(await lintOpenApi(doc.body)).toEqual([]);
  });
});
