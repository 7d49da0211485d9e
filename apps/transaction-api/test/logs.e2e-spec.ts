import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes, randomUUID } from 'node:crypto';
import { isUUID } from 'class-validator';
import { StdoutCapture, waitFor } from '#testing';
import { DEV_PLATFORM_TOKEN } from '../src/config/transaction-api.config.js';
import { TransactionApiHarness, transactionBody } from './harness.js';

describe('logs and request ids (e2e over HTTP, LOG_FORMAT=json, LOG_LEVEL=debug)', () => {
  let api: TransactionApiHarness;
  let output: StdoutCapture;

  beforeAll(async () => {
    output = new StdoutCapture();
    api = await TransactionApiHarness.start({ LOG_FORMAT: 'json', LOG_LEVEL: 'debug' });
  });
  afterAll(async () => {
    await api.close();
    output.restore();
  });

  /** The access line of a request (written once its answer is sent). */
  const accessLine = (requestId: string) =>
    waitFor(() => output.jsonLines().find((line) => line.requestId === requestId && 'status' in line), {
      what: `the access line of ${requestId}`,
    });

  it('answers with the request id, logs one access line per request with it, and never a credential', async () => {
    const merchant = await api.merchantWithKey();
    const customerReference = `customer-ref-${randomUUID()}`;
    const cavv = `CAVV${randomBytes(15).toString('base64')}`;
    const created = await api.request('POST', '/internal/transactions', {
      body: transactionBody(merchant.merchantId, merchant.integrationId, {
        referenceId: customerReference,
        authentication: { eci: '05', source: '3ds', version: '2.2.0', flow: 'challenge', cavv },
      }),
      headers: { authorization: `Bearer ${DEV_PLATFORM_TOKEN}`, 'x-request-id': 'platform-call-1' },
    });
    expect([created.status, created.headers.get('x-request-id')]).toEqual([201, 'platform-call-1']);
    const uuid = (created.body as { uuid: string }).uuid;

    const path = `/v1.17/transactions?referenceId=${customerReference}`;
    const bearer = await api.request('GET', path, {
      headers: { authorization: `Bearer ${merchant.apiKey}`, 'x-request-id': 'merchant-call-1' },
    });
    const header = await api.request('GET', `/v1.17/transactions/${uuid}`, {
      headers: { 'x-api-key': merchant.apiKey },
    });
    const refused = await api.request('GET', path, {
      headers: { authorization: 'Bearer pk_test_wrong_key_0123456789' },
    });
    expect([bearer.status, header.status, refused.status]).toEqual([200, 200, 401]);
    expect(bearer.headers.get('x-request-id')).toBe('merchant-call-1');
    for (const reply of [header, refused]) expect(isUUID(reply.headers.get('x-request-id'), 7)).toBe(true);

    expect(await accessLine('platform-call-1')).toEqual(
      expect.objectContaining({ level: 'info', method: 'POST', route: '/internal/transactions', status: 201 }),
    );
    // Merchant API requests name the merchant the key belongs to.
    expect(await accessLine('merchant-call-1')).toEqual(
      expect.objectContaining({
        method: 'GET',
        route: '/v1.17/transactions',
        status: 200,
        merchantId: merchant.merchantId,
      }),
    );
    expect(await accessLine(header.headers.get('x-request-id')!)).toEqual(
      expect.objectContaining({ route: '/v1.17/transactions/:uuid', status: 200, merchantId: merchant.merchantId }),
    );
    const refusedLine = await accessLine(refused.headers.get('x-request-id')!);
    expect([refusedLine.status, 'merchantId' in refusedLine]).toEqual([401, false]);

    for (const secret of [
      DEV_PLATFORM_TOKEN,
      merchant.apiKey,
      'pk_test_wrong_key_0123456789',
      cavv,
      customerReference,
    ]) {
      expect(output.text).not.toContain(secret);
    }
  });

  it('logs the readiness probe at debug', async () => {
    await api.request('GET', '/health/ready', { headers: { 'x-request-id': 'probe-1' } });
    expect(await accessLine('probe-1')).toEqual(expect.objectContaining({ level: 'debug', route: '/health/ready' }));
  });

  it('writes nothing but JSON lines with time, level, app and msg, without colour codes', () => {
    const lines = output.jsonLines();
    expect(lines.length).toBeGreaterThan(10);
    for (const line of lines) {
      expect(line).toEqual(
        expect.objectContaining({
          time: expect.any(String),
          level: expect.stringMatching(/^(debug|info|warn|error|fatal)$/),
          app: 'transaction-api',
          msg: expect.any(String),
        }),
      );
    }
    expect(output.text).not.toContain('\x1b');
  });
});
