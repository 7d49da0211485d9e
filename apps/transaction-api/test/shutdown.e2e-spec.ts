import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { Client } from 'undici';
import { appTestEnv } from '#testing';
import { DEV_PLATFORM_TOKEN } from '../src/config/transaction-api.config.js';
import { transactionBody } from './harness.js';

const MAIN = 'dist/apps/transaction-api/src/main.js';
const CLIENTS = 20;
const DRAIN_MS = 2_000;
/** The longest the shutdown may take: the drain, one more request per connection (1 s), and room for the hooks. */
const GRACE_MS = DRAIN_MS + 1_000 + 5_000;

/** transaction-api as its own OS process (built output), so that SIGTERM reaches it as in a container. */
function spawnApi(): {
  child: ChildProcess;
  baseUrl: Promise<string>;
  exited: Promise<{ code: number | null; signal: string | null; at: number }>;
  output: () => string;
} {
  if (!existsSync(MAIN))
    throw new Error(`${MAIN} is missing: the test target builds it first (nx run transaction-api:build)`);
  const child = spawn(process.execPath, [MAIN], {
    env: appTestEnv({
      TRANSACTION_API_PORT: '0',
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'json',
      SHUTDOWN_DRAIN_MS: String(DRAIN_MS),
      // The load is one API key's: over any per-key limit, which answers 429 and is not what this test is about.
      API_RATE_LIMIT: '1000000',
    }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<{ code: number | null; signal: string | null; at: number }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() })),
  );
  const baseUrl = new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const port = /Server listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(output)?.[1];
      if (port) resolve(`http://127.0.0.1:${port}`);
    });
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    void exited.then(() => reject(new Error(`transaction-api exited before listening:\n${output.slice(-4_000)}`)));
  });
  return { child, baseUrl, exited, output: () => output };
}

/** How each request of the load ended. */
interface Tally {
  ok: number;
  /** 503 application/problem+json `urn:problem:unavailable`: the shutdown's answer. */
  unavailable: number;
  /** Any other answer: each is a failure. */
  otherAnswers: string[];
  /**
   * New connections that never opened, by error code: ECONNREFUSED once the listener is closed, ECONNRESET for a
   * handshake the closing listener aborted (its error is the `connect` call's). The request was never written.
   */
  refused: Record<string, number>;
  /** Any other error on a request that was written (reset, closed by the other side, …): each is a failure. */
  socketErrors: string[];
  /** Connections each client opened before SIGTERM (keep-alive: one per client). */
  connectsBeforeSigterm: number;
}

describe('transaction-api: SIGTERM under keep-alive load (a real process)', () => {
  let api: ReturnType<typeof spawnApi>;
  let baseUrl: string;
  let apiKey: string;

  beforeAll(async () => {
    api = spawnApi();
    baseUrl = await api.baseUrl;
    const platform = async (path: string, body: unknown) => {
      const response = await fetch(`${baseUrl}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${DEV_PLATFORM_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      if (response.status !== 201) throw new Error(`${path}: ${response.status} ${await response.text()}`);
      return (await response.json()) as Record<string, string>;
    };
    const merchant = await platform('/internal/merchants', { name: 'Shutdown merchant' });
    const integration = await platform(`/internal/merchants/${merchant.id}/integrations`, { name: 'Shop' });
    apiKey = integration.apiKey;
    for (let i = 0; i < 3; i += 1)
      await platform(
        '/internal/transactions',
        transactionBody(merchant.id, integration.id, { referenceId: `order-${i}` }),
      );
  }, 60_000);

  afterAll(async () => {
    if (!api) return;
    if (api.child.exitCode === null && api.child.signalCode === null) api.child.kill('SIGKILL');
    await api.exited;
  });

  it('answers every request it read (2xx, or 503 problem), resets no connection and exits 0 in time', async () => {
    const tally: Tally = {
      ok: 0,
      unavailable: 0,
      otherAnswers: [],
      refused: {},
      socketErrors: [],
      connectsBeforeSigterm: 0,
    };
    let sigtermAt = 0;
    let exited = false;
    void api.exited.then(() => (exited = true));

    const load = async (index: number): Promise<void> => {
      const client = new Client(baseUrl, { pipelining: 1 });
      client.on('connect', () => {
        if (!sigtermAt) tally.connectsBeforeSigterm += 1;
      });
      for (let n = 0; !exited; n += 1) {
        const merchantRead = (n + index) % 2 === 0;
        try {
          const { statusCode, headers, body } = await client.request({
            method: 'GET',
            path: merchantRead ? '/v1.17/transactions?limit=2' : '/health/live',
            headers: merchantRead ? { authorization: `Bearer ${apiKey}` } : {},
          });
          const text = await body.text();
          if (statusCode >= 200 && statusCode < 300) tally.ok += 1;
          else if (
            statusCode === 503 &&
            String(headers['content-type']).startsWith('application/problem+json') &&
            (JSON.parse(text) as { type?: string }).type === 'urn:problem:unavailable'
          )
            tally.unavailable += 1;
          else tally.otherAnswers.push(`${statusCode} ${String(headers['content-type'])} ${text.slice(0, 200)}`);
        } catch (error) {
          const { code, syscall } = error as { code?: string; syscall?: string };
          if (syscall === 'connect' && code) {
            tally.refused[code] = (tally.refused[code] ?? 0) + 1;
            // A client that cannot connect waits a moment before the next try rather than spin.
            await new Promise((resolve) => setTimeout(resolve, 10));
          } else
            tally.socketErrors.push(
              `${code ?? 'error'}: ${(error as Error).message}${sigtermAt ? ` ${Date.now() - sigtermAt} ms after SIGTERM` : ''}`,
            );
        }
      }
      await client.destroy();
    };

    const clients = Array.from({ length: CLIENTS }, (_, index) => load(index));
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const okBeforeSigterm = tally.ok;
    sigtermAt = Date.now();
    api.child.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const exit = await Promise.race([
      api.exited,
      new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), GRACE_MS + 5_000))),
    ]);
    clearTimeout(timer);
    exited = true;
    await Promise.all(clients);

    const report = { ...tally, okBeforeSigterm, exit, log: exit ? undefined : api.output().slice(-2_000) };
    expect({
      ...report,
      socketErrors: tally.socketErrors.slice(0, 20),
      otherAnswers: tally.otherAnswers.slice(0, 20),
    }).toMatchObject({
      socketErrors: [],
      otherAnswers: [],
      // Keep-alive: each client kept its one connection until the shutdown.
      connectsBeforeSigterm: CLIENTS,
    });
    // The load ran before SIGTERM and went on through the shutdown.
    expect(okBeforeSigterm).toBeGreaterThan(CLIENTS);
    expect(tally.unavailable).toBeGreaterThanOrEqual(CLIENTS);
    expect(exit).toMatchObject({ code: 0, signal: null });
    expect(exit!.at - sigtermAt).toBeLessThan(GRACE_MS);
    console.log(
      `shutdown under load: ${okBeforeSigterm} 2xx before SIGTERM, ${tally.ok - okBeforeSigterm} after; ` +
        `${tally.unavailable} 503 problems; connections that never opened (nothing written): ${JSON.stringify(tally.refused)}; ` +
        `exit ${exit!.code} after ${exit!.at - sigtermAt} ms`,
    );
  }, 60_000);
});
