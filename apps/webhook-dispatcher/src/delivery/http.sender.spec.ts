import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadWebhookDispatcherConfig } from '../config/webhook-dispatcher.config.js';
import { DeadlineList } from './deadline-list.js';
import { HttpSender } from './http.sender.js';

const TIMEOUT_MS = 400;
/** How late a timer may fire on a busy 2-core machine during a full test run (seen: 374 ms). */
const TIMER_SLACK_MS = 1_500;

function sender(allowPrivate: boolean) {
  return new HttpSender(
    loadWebhookDispatcherConfig({
      NODE_ENV: 'development',
      WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
      WEBHOOK_ALLOW_PRIVATE_TARGETS: String(allowPrivate),
    }),
  );
}

describe('HttpSender (real loopback receivers)', () => {
  let server: Server;
  let base: string;
  const sockets = new Set<Socket>();
  const received: Array<{ method?: string; url?: string; headers: IncomingMessage['headers']; body: string }> = [];
  let handle: (request: IncomingMessage, response: ServerResponse) => void;
  let http: HttpSender;

  beforeAll(async () => {
    server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        received.push({
          method: request.method,
          url: request.url,
          headers: request.headers,
          body: Buffer.concat(chunks).toString(),
        });
        handle(request, response);
      });
    });
    server.on('connection', (socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    http = sender(true);
  });

  afterAll(async () => {
    await http.onApplicationShutdown();
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });

  beforeEach(() => (received.length = 0));

  it('POSTs the exact body and headers to the path and query, and reports status and response excerpt', async () => {
    handle = (_request, response) => response.writeHead(202).end('thanks ✓');
    const result = await http.send(
      `${base}/hooks/a?x=1`,
      { 'content-type': 'application/json', 'x-t': 'v' },
      '{"é":1}',
    );
    expect(result).toMatchObject({ status: 202, error: null, responseExcerpt: 'thanks ✓' });
    expect(result.errorType).toBeUndefined();
    expect(received).toEqual([
      expect.objectContaining({
        method: 'POST',
        url: '/hooks/a?x=1',
        body: '{"é":1}',
        headers: expect.objectContaining({ 'content-type': 'application/json', 'x-t': 'v' }),
      }),
    ]);
  });

  it('a redirect is reported as it is and not followed', async () => {
    handle = (_request, response) => response.writeHead(301, { location: `${base}/elsewhere` }).end();
    const result = await http.send(`${base}/moved`, {}, 'x');
    expect(result).toMatchObject({ status: 301, error: null, responseExcerpt: null });
    expect(received.map((r) => r.url)).toEqual(['/moved']);
  });

  it('keeps at most 1,000 characters of the response and stops reading a huge one', async () => {
    handle = (_request, response) => {
      response.writeHead(500);
      response.write('e'.repeat(2_000));
      // 1 MiB more, never ended: the sender must answer without waiting for (or reading) all of it.
      response.write(Buffer.alloc(1024 * 1024, 'f'));
    };
    const result = await http.send(`${base}/huge`, {}, 'x');
    expect(result.status).toBe(500);
    expect(result.error).toBeNull();
    expect(result.responseExcerpt).toBe('e'.repeat(1_000));
    expect(result.durationMs).toBeLessThan(TIMEOUT_MS);
  });

  it('no response headers within the timeout: status 0, a timeout error, after the timeout', async () => {
    handle = () => undefined; // never answers
    const result = await http.send(`${base}/silent`, {}, 'x');
    expect(result).toMatchObject({ status: 0, responseExcerpt: null, errorType: 'timeout' });
    expect(result.error).toBe(`Timeout: no complete response within ${TIMEOUT_MS} ms`);
    expect(result.durationMs).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
    expect(result.durationMs).toBeLessThan(TIMEOUT_MS + TIMER_SLACK_MS);
  }, 5_000);

  it('a body that trickles in slower than the timeout: status 0 at the timeout, though each chunk came in time', async () => {
    handle = (_request, response) => {
      response.writeHead(200);
      const timer = setInterval(() => response.write('.'), TIMEOUT_MS / 8);
      response.on('close', () => clearInterval(timer));
    };
    const result = await http.send(`${base}/trickle`, {}, 'x');
    expect(result).toMatchObject({ status: 0, error: `Timeout: no complete response within ${TIMEOUT_MS} ms` });
    expect(result.durationMs).toBeLessThan(TIMEOUT_MS + TIMER_SLACK_MS);
  }, 5_000);

  it('connection refused: status 0 with the reason', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const result = await http.send(`http://127.0.0.1:${port}/`, {}, 'x');
    expect(result).toMatchObject({
      status: 0,
      error: 'Connection refused: nothing accepts connections at this address and port',
      errorType: 'ECONNREFUSED',
    });
  });

  it('TLS failures: status 0 with what to fix, not OpenSSL text (a self-signed certificate, HTTPS to a plain HTTP port)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tls-'));
    const [key, cert] = [join(dir, 'key.pem'), join(dir, 'cert.pem')];
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1'].concat([
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=DNS:localhost',
      ]),
      { stdio: 'ignore' },
    );
    const tls = createHttpsServer({ key: readFileSync(key), cert: readFileSync(cert) }, (_request, response) =>
      response.end('ok'),
    );
    await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve));
    try {
      const selfSigned = await http.send(`https://localhost:${(tls.address() as AddressInfo).port}/`, {}, 'x');
      expect(selfSigned).toMatchObject({
        status: 0,
        error:
          'TLS certificate refused: it is self-signed, not issued by a trusted certificate authority ' +
          '(DEPTH_ZERO_SELF_SIGNED_CERT)',
      });
      const plain = await http.send(base.replace('http:', 'https:'), {}, 'x');
      expect(plain).toMatchObject({
        status: 0,
        error:
          'TLS handshake failed: the server does not speak HTTPS on this port (plain HTTP?) (ERR_SSL_WRONG_VERSION_NUMBER)',
      });
    } finally {
      await new Promise((resolve) => tls.close(resolve));
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('without WEBHOOK_ALLOW_PRIVATE_TARGETS a loopback address is refused before any connection', async () => {
    const guarded = sender(false);
    try {
      handle = (_request, response) => response.end();
      const byIp = await guarded.send(`${base}/private`, {}, 'x');
      const byName = await guarded.send(base.replace('127.0.0.1', 'localhost'), {}, 'x');
      expect(byIp).toMatchObject({ status: 0, error: expect.stringMatching(/^Blocked: 127\.0\.0\.1 /) });
      expect(byName).toMatchObject({ status: 0, error: expect.stringMatching(/^Blocked: localhost resolves only/) });
      expect(received).toHaveLength(0);
    } finally {
      await guarded.onApplicationShutdown();
    }
  });

  it('refuses a port other than 80, 443 or 1024–65535 before any connection, even with private targets allowed', async () => {
    for (const url of [
      'http://127.0.0.1:22/',
      'https://localhost:25/',
      'http://127.0.0.1:0/',
      'http://127.0.0.1:1023/',
    ]) {
      const port = new URL(url).port;
      expect([url, await http.send(url, {}, 'x')]).toEqual([
        url,
        expect.objectContaining({
          status: 0,
          error: `Blocked: port ${port} is not allowed; webhooks may only use port 80, 443 or a port from 1024 to 65535`,
        }),
      ]);
    }
    handle = (_request, response) => response.writeHead(204).end();
    expect(await http.send(`${base}/allowed`, {}, 'x')).toMatchObject({ status: 204, error: null });
    expect(received.map((request) => request.url)).toEqual(['/allowed']);
  });

  it('keeps a response excerpt PostgreSQL can store: NUL and a character cut in half become U+FFFD, the rest stays', async () => {
    const head = 'pair \u{1F600} ünï a\u0000b ';
    const filler = 'x'.repeat(999 - head.length); // the excerpt's 1,000 characters end with half of the last emoji
    handle = (_request, response) => response.writeHead(200).end(`${head}${filler}\u{1F600} and more`);
    const result = await http.send(`${base}/excerpt`, {}, 'x');
    expect(result).toMatchObject({ status: 200, error: null });
    expect(result.responseExcerpt).toBe(`pair \u{1F600} ünï a\uFFFDb ${filler}\uFFFD`);
  });

  it('a URL that cannot be parsed: status 0, nothing thrown', async () => {
    const result = await http.send('not a url', {}, 'x');
    expect(result).toMatchObject({ status: 0, responseExcerpt: null });
    expect(result.error).toBeTruthy();
  });
});

describe('DeadlineList', () => {
  it('expires entries in order after their time, and never one that was removed', async () => {
    const deadlines = new DeadlineList(50);
    const expired: string[] = [];
    deadlines.add(() => expired.push('a'));
    const cancelB = deadlines.add(() => expired.push('b'));
    await new Promise((resolve) => setTimeout(resolve, 20));
    deadlines.add(() => expired.push('c'));
    cancelB();
    await new Promise((resolve) => setTimeout(resolve, 40)); // a is due, c not yet
    expect(expired).toEqual(['a']);
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(expired).toEqual(['a', 'c']);
  });
});
