import { afterAll, beforeAll, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { freePort } from '#testing';
import {
  startLocalhostReceiver,
  startTinyproxy,
  type LocalhostReceiver,
  type Tinyproxy,
} from '../../test/egress-proxy.harness.js';
import { loadWebhookDispatcherConfig } from '../config/webhook-dispatcher.config.js';
import { HttpSender } from './http.sender.js';

const TIMEOUT_MS = 500;

function sender(proxy: string, allowPrivate = true): HttpSender {
  return new HttpSender(
    loadWebhookDispatcherConfig({
      NODE_ENV: 'development',
      WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
      WEBHOOK_ALLOW_PRIVATE_TARGETS: String(allowPrivate),
      WEBHOOK_EGRESS_PROXY: proxy,
    }),
  );
}

describe('HttpSender through an egress proxy (a real tinyproxy)', () => {
  let proxy: Tinyproxy;
  let tls: LocalhostReceiver;
  let server: Server;
  let port: number;
  let http: HttpSender;
  const received: Array<{ url?: string; host?: string; body: string }> = [];
  let hang = false;

  beforeAll(async () => {
    proxy = await startTinyproxy();
    tls = await startLocalhostReceiver('https');
    server = createServer((request: IncomingMessage, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        received.push({ url: request.url, host: request.headers.host, body: Buffer.concat(chunks).toString() });
        if (!hang) response.writeHead(202).end('accepted');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    http = sender(proxy.url);
  });
  afterAll(async () => {
    await http?.onApplicationShutdown();
    await tls?.stop();
    await proxy?.stop();
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  });
  beforeEach(() => {
    received.length = 0;
    hang = false;
  });

  it('http: the proxy is asked to CONNECT to the address the dispatcher resolved and checked; the Host header keeps the name', async () => {
    const result = await http.send(`http://localhost:${port}/hooks?a=1`, { 'content-type': 'text/plain' }, 'hello');
    expect(result).toMatchObject({ status: 202, error: null, responseExcerpt: 'accepted' });
    expect(received).toEqual([{ url: '/hooks?a=1', host: `localhost:${port}`, body: 'hello' }]);
    expect(proxy.requests()).toContain(`CONNECT 127.0.0.1:${port} HTTP/1.1`);
    expect(proxy.requests().filter((line) => line.includes('localhost'))).toEqual([]);
  });

  it('https: TLS inside the tunnel with the host name as server name and for the certificate check', async () => {
    const tlsPort = new URL(tls.url).port;
    // Not trusted yet: the certificate check runs against the name, inside the tunnel.
    const untrusted = await http.send(`${tls.url}/secure`, {}, 'x');
    expect(untrusted).toMatchObject({
      status: 0,
      error: expect.stringMatching(/^TLS certificate refused: it is self-signed/),
    });
    tls.trust();
    const result = await http.send(`${tls.url}/secure`, {}, 'x');
    expect(result).toMatchObject({ status: 200, error: null, responseExcerpt: 'ok over https' });
    expect(tls.requests).toEqual([{ path: '/secure', host: `localhost:${tlsPort}`, servername: 'localhost' }]);
    expect(proxy.requests()).toContain(`CONNECT 127.0.0.1:${tlsPort} HTTP/1.1`);
  });

  it('keeps the timeout: a receiver that never answers through the tunnel is status 0 after WEBHOOK_TIMEOUT_MS', async () => {
    hang = true;
    const result = await http.send(`http://localhost:${port}/silent`, {}, 'x');
    expect(result).toMatchObject({ status: 0, error: `Timeout: no complete response within ${TIMEOUT_MS} ms` });
    expect(result.durationMs).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
    // Its own timer, not a later one (tinyproxy's or undici's are minutes): with slack for a busy 2-core machine, whose
    // timers ran up to 374 ms late under a full test run.
    expect(result.durationMs).toBeLessThan(TIMEOUT_MS + 2_000);
  });

  it('the proxy cannot reach the receiver: status 0, saying so with the address it tried', async () => {
    const closed = await freePort();
    const result = await http.send(`http://localhost:${closed}/`, {}, 'x');
    expect(result).toMatchObject({
      status: 0,
      error: expect.stringMatching(
        new RegExp(
          `^Connection failed: the egress proxy could not connect to 127\\.0\\.0\\.1:${closed} \\(it answered 5\\d\\d\\)$`,
        ),
      ),
    });
  });

  it('without WEBHOOK_ALLOW_PRIVATE_TARGETS a name resolving to loopback is refused before the proxy is contacted', async () => {
    const guarded = sender(proxy.url, false);
    try {
      const before = proxy.connections();
      const byName = await guarded.send(`http://localhost:${port}/named`, {}, 'x');
      const byIp = await guarded.send(`http://127.0.0.1:${port}/literal`, {}, 'x');
      expect(byName).toMatchObject({
        status: 0,
        error: expect.stringMatching(/^Blocked: localhost resolves only to private or loopback addresses/),
      });
      expect(byIp).toMatchObject({
        status: 0,
        error: expect.stringMatching(/^Blocked: 127\.0\.0\.1 is a private or loopback address/),
      });
      expect(proxy.connections()).toBe(before);
      expect(received).toEqual([]);
    } finally {
      await guarded.onApplicationShutdown();
    }
  });

  it('the proxy is down: status 0 "Egress proxy unreachable", logged once per outage without credentials', async () => {
    const errors = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const down = sender(`http://user:s3cret@127.0.0.1:${await freePort()}`);
    try {
      for (let i = 0; i < 2; i += 1) {
        expect(await down.send(`http://localhost:${port}/`, {}, 'x')).toMatchObject({
          status: 0,
          error: 'Egress proxy unreachable: connection refused — a problem on our side, not at your server',
        });
      }
      const logged = errors.mock.calls.map(([message]) => String(message));
      expect(logged).toEqual([expect.stringMatching(/^Egress proxy 127\.0\.0\.1:\d+ failing \(connection refused\)/)]);
      expect(logged.join()).not.toContain('s3cret');
      expect(received).toEqual([]);
    } finally {
      errors.mockRestore();
      await down.onApplicationShutdown();
    }
  });
});
