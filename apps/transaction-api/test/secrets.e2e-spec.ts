import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { randomBytes, randomUUID } from 'node:crypto';
import { dumpDatabase } from './db.js';
import { EventTap } from './event-tap.js';
import { TransactionApiHarness, transactionBody } from './harness.js';

/**
 * The cryptogram (cavv) and the 3-D Secure transaction ids are accepted and dropped: they must appear nowhere —
 * not in the database, not in the app's logs, not in a response, not in a published event.
 */
describe('raw 3-D Secure data is never stored, logged or returned (e2e over HTTP)', () => {
  let api: TransactionApiHarness;
  let tap: EventTap;
  const logs: string[] = [];
  const responses: string[] = [];
  const secrets: string[] = [];
  const restore: (() => void)[] = [];

  const secretAuthentication = () => {
    const authentication = {
      eci: '05',
      source: '3ds',
      version: '2.2.0',
      flow: 'challenge',
      cavv: `CAVV${randomBytes(15).toString('base64')}`,
      dsTransactionId: randomUUID(),
      acsTransactionId: randomUUID(),
      threeDSServerTransactionId: randomUUID(),
    };
    secrets.push(
      authentication.cavv,
      authentication.dsTransactionId,
      authentication.acsTransactionId,
      authentication.threeDSServerTransactionId,
    );
    return authentication;
  };

  beforeAll(async () => {
    for (const stream of [process.stdout, process.stderr]) {
      const spy = jest.spyOn(stream, 'write').mockImplementation(((chunk: unknown, ...rest: unknown[]) => {
        logs.push(String(chunk));
        const callback = rest.find((arg) => typeof arg === 'function') as (() => void) | undefined;
        callback?.();
        return true;
      }) as never);
      restore.push(() => spy.mockRestore());
    }
    for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) {
      const spy = jest.spyOn(console, method).mockImplementation((...args: unknown[]) => {
        logs.push(args.map(String).join(' '));
      });
      restore.push(() => spy.mockRestore());
    }
    tap = await EventTap.open();
    api = await TransactionApiHarness.start({ LOG_LEVEL: 'debug' });
  });
  afterAll(async () => {
    await api.close();
    await tap.close();
    restore.forEach((undo) => undo());
  });

  it('keeps cavv and the 3DS ids out of the database, the logs, every response and every event', async () => {
    const merchant = await api.merchantWithKey();
    const send = async (body: unknown, raw?: string) => {
      const reply = await api.request('POST', '/internal/transactions', {
        body: raw === undefined ? body : undefined,
        raw,
        headers: { authorization: 'Bearer development-platform-token', 'content-type': 'application/json' },
      });
      responses.push(reply.text);
      return reply;
    };
    const base = (extra: Record<string, unknown> = {}) =>
      transactionBody(merchant.merchantId, merchant.integrationId, {
        authentication: secretAuthentication(),
        ...extra,
      });

    const uuids: string[] = [];
    for (const extra of [
      {},
      { type: 'pos' },
      { paymentMethod: 'twint' },
      { authentication: { ...secretAuthentication(), source: 'token' } },
    ]) {
      const reply = await send(base(extra));
      expect(reply.status).toBe(201);
      uuids.push((reply.body as { uuid: string }).uuid);
    }
    // Idempotent retry, conflicting retry, and refused bodies that carry the secrets.
    const again = base({ uuid: uuids[0] });
    expect((await send({ ...again, authentication: secretAuthentication() })).status).toBe(200);
    expect((await send(base({ uuid: uuids[0], amount: 5 }))).status).toBe(409);
    expect((await send(base({ amount: -1 }))).status).toBe(400);
    expect((await send(base({ unknownField: secrets[0] }))).status).toBe(400);
    expect((await send(base({ authentication: { ...secretAuthentication(), note: 'x'.repeat(1_025) } }))).status).toBe(
      400,
    );
    // Nested PSP data is accepted (EMV messageExtension), and a secret inside it goes nowhere either.
    const nested = await send(base({ authentication: { ...secretAuthentication(), nested: { cavv: secrets[0] } } }));
    expect(nested.status).toBe(201);
    uuids.push((nested.body as { uuid: string }).uuid);
    expect((await send(undefined, JSON.stringify(base()).slice(0, -3))).status).toBe(400);
    expect((await send(undefined, JSON.stringify(base({ psp: 'x'.repeat(70_000) })))).status).toBe(413);

    for (const uuid of uuids) {
      await api.platform('POST', `/internal/transactions/${uuid}/status`, { status: 'confirmed' });
      for (const version of ['1.0', '1.17'])
        responses.push((await api.merchant(merchant.apiKey, `/v${version}/transactions/${uuid}`)).text);
    }
    responses.push((await api.merchant(merchant.apiKey, '/v1.17/transactions?limit=100')).text);

    const events = await tap.waitFor((event) => event.merchantId === merchant.merchantId, uuids.length * 2);
    const published = events.map((event) => event.body).join('\n');
    expect(published).toContain('threeDSecure');

    const dump = await dumpDatabase();
    expect(dump).toContain(uuids[0]);
    const everywhere = { database: dump, logs: logs.join('\n'), responses: responses.join('\n'), events: published };
    expect(secrets.length).toBeGreaterThan(30);
    for (const [where, text] of Object.entries(everywhere)) {
      for (const secret of secrets) expect([where, text.includes(secret)]).toEqual([where, false]);
      expect([where, /cavv|dsTransactionId|acsTransactionId|threeDSServerTransactionId/i.test(text)]).toEqual([
        where,
        false,
      ]);
    }
  });
});
