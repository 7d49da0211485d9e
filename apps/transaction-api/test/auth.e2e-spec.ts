import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash, randomUUID } from 'node:crypto';
import { sql } from './db.js';
import { DEV_PLATFORM_TOKEN } from '../src/config/transaction-api.config.js';
import { TransactionApiHarness } from './harness.js';

describe('merchants, integrations and authentication (e2e over HTTP)', () => {
  let api: TransactionApiHarness;

  beforeAll(async () => {
    api = await TransactionApiHarness.start();
  });
  afterAll(async () => {
    await api.close();
  });

  it('creates a merchant and an integration whose API key is shown once and stored only as a SHA-256 hash', async () => {
    const merchant = await api.platform<{ id: string; name: string }>('POST', '/internal/merchants', {
      name: 'Velo AG',
    });
    expect(merchant.status).toBe(201);
    expect(merchant.body).toEqual({ id: expect.any(String), name: 'Velo AG' });
    const integration = await api.platform<{ id: string; name: string; apiKey: string }>(
      'POST',
      `/internal/merchants/${merchant.body.id}/integrations`,
      { name: 'Shop' },
    );
    expect(integration.status).toBe(201);
    expect(Object.keys(integration.body)).toEqual(['id', 'name', 'apiKey']);
    expect(integration.body.apiKey).toMatch(/^pk_[A-Za-z0-9_-]{43}$/);

    const [row] = await sql<{ hash: Buffer; prefix: string; merchant_id: string }>(
      'SELECT api_key_hash AS hash, api_key_prefix AS prefix, merchant_id FROM integration WHERE id = $1',
      [integration.body.id],
    );
    expect(row.hash.equals(createHash('sha256').update(integration.body.apiKey).digest())).toBe(true);
    expect(row.prefix).toBe(integration.body.apiKey.slice(0, 9));
    expect(row.merchant_id).toBe(merchant.body.id);
    const everything = await sql<{ row: string }>('SELECT t::text AS row FROM integration t');
    expect(everything.some((r) => r.row.includes(integration.body.apiKey))).toBe(false);
  });

  it('answers 404 for integrations of an unknown merchant and 400 for a bad name or id', async () => {
    expect((await api.platform('POST', `/internal/merchants/${randomUUID()}/integrations`, { name: 'x' })).status).toBe(
      404,
    );
    expect((await api.platform('POST', '/internal/merchants/123/integrations', { name: 'x' })).status).toBe(400);
    for (const body of [
      {},
      { name: '' },
      { name: '   ' },
      { name: 'x'.repeat(201) },
      { name: 5 },
      { name: 'ok', extra: 1 },
    ]) {
      const reply = await api.platform('POST', '/internal/merchants', body);
      expect(reply.status).toBe(400);
      expect(reply.body.errors).toEqual(
        expect.arrayContaining([expect.objectContaining({ field: expect.stringMatching(/^(name|extra)$/) })]),
      );
    }
  });

  it('reads platform bodies only as JSON: a form, text or a body without a type is 415 and creates nothing', async () => {
    const name = `Form merchant ${randomUUID()}`;
    for (const [contentType, raw] of [
      ['application/x-www-form-urlencoded', `name=${encodeURIComponent(name)}`],
      [
        'multipart/form-data; boundary=x',
        `--x\r\nContent-Disposition: form-data; name="name"\r\n\r\n${name}\r\n--x--\r\n`,
      ],
      ['text/plain', JSON.stringify({ name })],
    ]) {
      const reply = await api.request('POST', '/internal/merchants', {
        raw,
        headers: { authorization: `Bearer ${DEV_PLATFORM_TOKEN}`, 'content-type': contentType },
      });
      expect([contentType, reply.status, reply.contentType]).toEqual([
        contentType,
        415,
        expect.stringMatching(/^application\/problem\+json/),
      ]);
      expect(reply.body).toEqual({
        type: 'urn:problem:unsupported-media-type',
        title: 'Unsupported media type',
        status: 415,
        detail: 'Send the request body as JSON (Content-Type: application/json).',
      });
    }
    // No Content-Type at all (fetch sends none for bytes).
    const untyped = await fetch(`${api.baseUrl}/internal/merchants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${DEV_PLATFORM_TOKEN}` },
      body: new TextEncoder().encode(JSON.stringify({ name })),
    });
    expect(untyped.status).toBe(415);
    expect(await sql('SELECT id FROM merchant WHERE name = $1', [name])).toEqual([]);
  });

  it('guards the platform API with the platform token (401 problem otherwise)', async () => {
    for (const headers of [
      {} as Record<string, string>,
      { authorization: 'Bearer wrong-token-of-some-length' },
      { authorization: 'development-platform-token' },
      { authorization: 'Basic ZGV2Og==' },
    ]) {
      const reply = await api.request('POST', '/internal/merchants', { body: { name: 'x' }, headers });
      expect(reply.status).toBe(401);
      expect(reply.contentType).toContain('application/problem+json');
      expect(reply.text).not.toContain('development-platform-token');
    }
  });

  it('accepts a merchant key as Bearer or X-API-KEY and refuses anything else with 401', async () => {
    const { apiKey } = await api.merchantWithKey();
    expect(
      (await api.request('GET', '/v1.17/transactions', { headers: { authorization: `Bearer ${apiKey}` } })).status,
    ).toBe(200);
    expect((await api.request('GET', '/v1.17/transactions', { headers: { 'x-api-key': apiKey } })).status).toBe(200);
    const wrongKey = `pk_${'A'.repeat(43)}`;
    for (const headers of [
      {} as Record<string, string>,
      { 'x-api-key': wrongKey },
      { authorization: `Bearer ${wrongKey}` },
      { authorization: `Basic ${apiKey}` },
      { 'x-api-key': 'short' },
      { authorization: 'Bearer development-platform-token' },
    ]) {
      const reply = await api.request('GET', '/v1.17/transactions', { headers });
      expect(reply.status).toBe(401);
      expect(reply.contentType).toContain('application/problem+json');
      // RFC 9110: a 401 names the scheme it wants.
      expect(reply.headers.get('www-authenticate')).toBe('Bearer');
    }
    // The platform API does not accept merchant keys.
    expect(
      (
        await api.request('POST', '/internal/merchants', {
          body: { name: 'x' },
          headers: { authorization: `Bearer ${apiKey}` },
        })
      ).status,
    ).toBe(401);
  });

  it('tells every cache not to keep an answer: payment data, errors and the platform API alike', async () => {
    const { apiKey } = await api.merchantWithKey();
    const merchant = { authorization: `Bearer ${apiKey}` };
    const answers = await Promise.all([
      api.request('GET', '/v1.17/transactions', { headers: merchant }),
      api.request('GET', `/v1.17/transactions/${randomUUID()}`, { headers: merchant }),
      api.request('GET', '/v1.17/transactions', {}),
      api.request('GET', '/v1.99/transactions', { headers: merchant }),
      api.platform('POST', '/internal/merchants', { name: 'Cache AG' }),
    ]);
    expect(answers.map((a) => [a.status, a.headers.get('cache-control')])).toEqual([
      [200, 'no-store'],
      [404, 'no-store'],
      [401, 'no-store'],
      [404, 'no-store'],
      [201, 'no-store'],
    ]);
  });
});
