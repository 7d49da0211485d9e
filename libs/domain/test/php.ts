/**
 * Test harness around the real PHP CLI: `parse_str`, `hash_hmac` and a `php -S` server echoing `$_POST`.
 *
 * The PHP-Post and signature tests must run against real PHP; when it is missing they fail (never skip) with the
 * install command.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { accessSync, constants, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export const PHP_MISSING =
  'PHP CLI (php) was not found on PATH. These tests check the PHP-Post encoding and the signatures against real PHP ' +
  'and must not be skipped. Install it: apt-get install -y php-cli';

/** PHP settings of every run: no php.ini (reproducible defaults), every notice to stderr. */
const PHP_FLAGS = ['-n', '-d', 'display_errors=stderr', '-d', 'error_reporting=-1', '-d', 'log_errors=0'];

/** The absolute path of `php` on PATH; throws {@link PHP_MISSING} when there is none. */
export function findPhp(): string {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, 'php');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  throw new Error(PHP_MISSING);
}

/** Run `php -r code` with `stdin`; resolves stdout; rejects on a non-zero exit or any output on stderr. */
export async function runPhp(code: string, stdin: string): Promise<string> {
  const child = spawn(findPhp(), [...PHP_FLAGS, '-r', code], { stdio: ['pipe', 'pipe', 'pipe'] });
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
  child.stdin.end(stdin);
  const [exitCode] = (await once(child, 'close')) as [number | null];
  const errors = Buffer.concat(stderr).toString('utf8');
  if (exitCode !== 0 || errors !== '') {
    throw new Error(`php exited with ${exitCode}: ${errors}`);
  }
  return Buffer.concat(stdout).toString('utf8');
}

/** `parse_str` each body in one PHP process; every result as `json_encode(…, JSON_FORCE_OBJECT)` parsed back. */
export async function phpParseStr(bodies: readonly string[]): Promise<unknown[]> {
  const code = `
    $bodies = json_decode(stream_get_contents(STDIN), true, 512, JSON_THROW_ON_ERROR);
    foreach ($bodies as $body) {
      $result = [];
      parse_str($body, $result);
      echo json_encode($result, JSON_FORCE_OBJECT | JSON_THROW_ON_ERROR), "\\n";
    }`;
  const out = await runPhp(code, JSON.stringify(bodies));
  const lines = out.split('\n').slice(0, -1);
  if (lines.length !== bodies.length) throw new Error(`expected ${bodies.length} results from php, got: ${out}`);
  return lines.map((line) => JSON.parse(line) as unknown);
}

/** PHP's `hash_hmac('sha256', $body, $secret)` for each case (body bytes passed as base64). */
export async function phpHmacHex(cases: readonly { body: string | Uint8Array; secret: string }[]): Promise<string[]> {
  const code = `
    $cases = json_decode(stream_get_contents(STDIN), true, 512, JSON_THROW_ON_ERROR);
    foreach ($cases as $c) { echo hash_hmac('sha256', base64_decode($c['body'], true), $c['secret']), "\\n"; }`;
  const input = cases.map(({ body, secret }) => ({ body: Buffer.from(body).toString('base64'), secret }));
  return (await runPhp(code, JSON.stringify(input))).split('\n').slice(0, -1);
}

/**
 * A Standard Webhooks check written in PHP, independent of the TypeScript code: whether `signature` (the header
 * value) contains `v1,` + base64 HMAC-SHA256 of `id.timestamp.body` keyed with base64_decode(secret without whsec_).
 */
export async function phpStandardWebhookMatches(
  cases: readonly { id: string; timestamp: string; body: string | Uint8Array; secret: string; signature: string }[],
): Promise<boolean[]> {
  const code = `
    $cases = json_decode(stream_get_contents(STDIN), true, 512, JSON_THROW_ON_ERROR);
    foreach ($cases as $c) {
      $key = base64_decode(substr($c['secret'], strlen('whsec_')), true);
      $signed = $c['id'] . '.' . $c['timestamp'] . '.' . base64_decode($c['body'], true);
      $expected = 'v1,' . base64_encode(hash_hmac('sha256', $signed, $key, true));
      $ok = false;
      foreach (explode(' ', $c['signature']) as $part) { $ok = $ok || hash_equals($expected, $part); }
      echo $ok ? "yes\\n" : "no\\n";
    }`;
  const input = cases.map((c) => ({ ...c, body: Buffer.from(c.body).toString('base64') }));
  return (await runPhp(code, JSON.stringify(input)))
    .split('\n')
    .slice(0, -1)
    .map((line) => line === 'yes');
}

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

const ROUTER = `<?php
header('Content-Type: application/json');
echo json_encode(
  ['method' => $_SERVER['REQUEST_METHOD'], 'contentType' => $_SERVER['CONTENT_TYPE'] ?? null, 'post' => $_POST],
  JSON_FORCE_OBJECT | JSON_THROW_ON_ERROR,
);
`;

/** A running `php -S` whose router answers `{method, contentType, post: $_POST}`. */
export interface PhpPostServer {
  readonly url: string;
  /** POST `body` as `application/x-www-form-urlencoded`; resolves PHP's `$_POST` (JSON_FORCE_OBJECT). */
  post(body: string): Promise<unknown>;
  /** Kill the server (idempotent). */
  stop(): Promise<void>;
}

/** Start `php -S 127.0.0.1:<free port>`; waits until it answers. Always pair with `stop()` in `afterAll`. */
export async function startPhpPostServer(): Promise<PhpPostServer> {
  const php = findPhp();
  const dir = mkdtempSync(join(tmpdir(), 'domain-php-'));
  writeFileSync(join(dir, 'router.php'), ROUTER);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  const child: ChildProcess = spawn(php, [...PHP_FLAGS, '-S', `127.0.0.1:${port}`, join(dir, 'router.php')], {
    cwd: dir,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  child.stderr?.on('data', (chunk: Buffer) => (log = (log + chunk.toString('utf8')).slice(-4000)));
  const killOnExit = (): void => {
    child.kill('SIGKILL');
  };
  process.once('exit', killOnExit);

  const stop = async (): Promise<void> => {
    process.removeListener('exit', killOnExit);
    if (child.exitCode === null && child.signalCode === null) {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 2000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  };

  const post = async (body: string): Promise<unknown> => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body,
    });
    const text = await response.text();
    if (response.status !== 200) throw new Error(`php -S answered ${response.status}: ${text}\n${log}`);
    const echoed = JSON.parse(text) as { method: string; contentType: string; post: unknown };
    if (echoed.method !== 'POST' || echoed.contentType !== 'application/x-www-form-urlencoded') {
      throw new Error(`unexpected request seen by PHP: ${text}`);
    }
    return echoed.post;
  };

  try {
    const deadline = Date.now() + 10_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`php -S exited with ${child.exitCode}: ${log}`);
      try {
        await fetch(url, { method: 'POST', body: '' });
        break;
      } catch (error) {
        if (Date.now() > deadline) throw new Error(`php -S did not start: ${String(error)}\n${log}`, { cause: error });
        await sleep(50);
      }
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, post, stop };
}

/**
 * What PHP is expected to rebuild from a tree (the encoder's documented conventions): every leaf a string
 * (`null` → `''`, `true` → `'1'`, `false` → `'0'`, numbers as JSON text), lists as objects keyed `0…n-1`,
 * an empty object or list as `''`.
 */
export function phpView(value: unknown): unknown {
  if (value === null || value === undefined) return '';
  if (typeof value === 'boolean') return value ? '1' : '0';
  if (typeof value === 'number') return Number.isFinite(value) ? JSON.stringify(value) : '';
  if (typeof value === 'string') return value;
  const entries = Array.isArray(value)
    ? value.map((element, index) => [String(index), phpView(element)] as const)
    : Object.entries(value as object).map(([key, child]) => [key, phpView(child)] as const);
  return entries.length === 0 ? '' : Object.fromEntries(entries);
}
