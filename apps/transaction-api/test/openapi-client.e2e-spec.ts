import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import { TransactionApiHarness } from './harness.js';

const TSC = fileURLToPath(new URL('../../../node_modules/typescript/bin/tsc', import.meta.url));

/**
 * A merchant's code against the generated types, as written by hand: reads `3dsecure` of a 1.17 transaction
 * (single and in a page) without a cast, and gets a compile error where an older version has no such key.
 */
const CLIENT = `
import type { paths } from './transaction-api.js';

type Json<Path extends '/v1.17/transactions/{uuid}' | '/v1.17/transactions' | '/v{version}/transactions/{uuid}'> =
  paths[Path]['get']['responses'][200]['content']['application/json'];
type Transaction117 = Json<'/v1.17/transactions/{uuid}'>;

export function eciOf(transaction: Transaction117): string | null {
  const threeDSecure = transaction['3dsecure'];
  return threeDSecure === null ? null : threeDSecure.eci;
}

export function flows(page: Json<'/v1.17/transactions'>): (string | null)[] {
  return page.data.map((transaction) => transaction['3dsecure']?.flow ?? null);
}

// Always present from 1.17 (an object or null), never optional.
export const required: {} extends Pick<Transaction117, '3dsecure'> ? 'optional' : 'required' = 'required';

export function older(transaction: Json<'/v{version}/transactions/{uuid}'>): unknown {
  // @ts-expect-error 1.0–1.16 have no 3dsecure
  return transaction['3dsecure'];
}
`;

describe('a typed client generated from the OpenAPI document (e2e over HTTP)', () => {
  let api: TransactionApiHarness;
  let dir: string;

  beforeAll(async () => {
    api = await TransactionApiHarness.start();
    dir = await mkdtemp(join(tmpdir(), 'openapi-client-'));
  });
  afterAll(async () => {
    await api.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('compiles, and types a 1.17 transaction with 3dsecure', async () => {
    // Generated from the served document on every run, into a temporary directory: it cannot go stale, and
    // nothing generated is kept in the repository.
    const doc = (await api.request<OpenAPI3>('GET', '/docs-json')).body;
    await writeFile(join(dir, 'transaction-api.d.ts'), astToString(await openapiTS(doc, { silent: true })));
    await writeFile(join(dir, 'client.ts'), CLIENT);

    const args = [
      TSC,
      '--noEmit',
      '--pretty',
      'false',
      '--strict',
      '--module',
      'nodenext',
      '--target',
      'es2023',
      'client.ts',
    ];
    const result = await promisify(execFile)(process.execPath, args, { cwd: dir, timeout: 60_000 }).then(
      () => 'compiles',
      (error: { stdout?: string; message: string }) => error.stdout || error.message,
    );
    expect(result).toBe('compiles');
  });
});
