import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { API_KEY, FakeBackend, killClis, Receiver, runCli, SECRET, waitFor, type Cli } from './cli-harness.js';

const BODY = '{"transaction":{"uuid":"0b8a2c4e-1111-4222-8333-444455556666","status":"authorized","note":"grüße €"}}';

function eventFrame(id: string, body = BODY) {
  return {
    type: 'event',
    id,
    eventId: `evt_${id}`,
    eventType: 'transaction.created',
    subjectId: '0b8a2c4e-1111-4222-8333-444455556666',
    referenceId: 'order-42',
    request: {
      headers: {
        'content-type': 'application/json',
        'webhook-id': id,
        'webhook-timestamp': '1795881723',
        'webhook-signature': 'v1,c2lnbmF0dXJl',
        'x-webhook-signature': 'abcdef0123',
        'user-agent': 'payments-webhooks/1.0',
        'x-custom': 'Value With Case',
      },
      body,
    },
  };
}

describe('payments listen', () => {
  let backend: FakeBackend;
  let receiver: Receiver;

  beforeEach(async () => {
    backend = await new FakeBackend().start();
    receiver = await new Receiver().start();
  });

  afterEach(async () => {
    killClis();
    await backend.stop();
    await receiver.stop();
  });

  function start(extra: string[] = [], env: Record<string, string> = {}): Cli {
    return runCli(['listen', '--api-key', API_KEY, '--forward-to', receiver.url, ...extra], {
      PAYMENTS_BACKEND_URL: backend.url,
      ...env,
    });
  }

  it('starts a session with the options, opens its stream with the key and prints one ready line with the secret', async () => {
    const cli = start([
      '--events',
      'transaction,subscription',
      '--version',
      '2026-08-20',
      '--content-type',
      'php-post',
    ]);
    const ready = await cli.line(/^Ready!/);
    expect(ready).toBe(
      `Ready! Your webhook signing secret is ${SECRET} (session ses_1: transaction, subscription events, ` +
        `version 2026-08-20, json → ${receiver.url}). Press Ctrl+C to quit.`,
    );
    const [create] = backend.requests;
    expect(create.method).toBe('POST');
    expect(create.path).toBe('/api/cli/sessions');
    expect(create.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(JSON.parse(create.body.toString())).toEqual({
      forwardTo: receiver.url,
      events: ['transaction', 'subscription'],
      version: '2026-08-20',
      contentType: 'php-post',
    });
    const connection = await backend.connection(0);
    expect(connection.path).toBe('/api/cli/sessions/ses_1/stream');
    expect(connection.authorization).toBe(`Bearer ${API_KEY}`);
    expect(cli.stdout().match(/whsec_/g)).toHaveLength(1);
    expect(cli.stdout() + cli.stderr()).not.toContain(API_KEY);
  });

  it('sends only the forward URL when no option is given (the server picks the defaults)', async () => {
    const cli = start();
    await cli.line(/^Ready!/);
    expect(JSON.parse(backend.requests[0].body.toString())).toEqual({ forwardTo: receiver.url });
  });

  it('POSTs exactly the given bytes and headers, prints one line and sends the result back', async () => {
    const cli = start();
    await cli.line(/^Ready!/);
    const connection = await backend.connection(0);
    connection.send(eventFrame('msg_1'));
    const line = await cli.line(/transaction\.created/);
    expect(line).toMatch(
      /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d {2}transaction\.created {2}0b8a2c4e-1111-4222-8333-444455556666 {2}--> 200 \[\d+ ms\]$/,
    );
    expect(receiver.requests).toHaveLength(1);
    const [request] = receiver.requests;
    expect(request.method).toBe('POST');
    expect(request.path).toBe('/hooks');
    expect(request.body.equals(Buffer.from(BODY, 'utf8'))).toBe(true);
    const sent = eventFrame('msg_1').request.headers;
    const names = new Set<string>();
    for (let i = 0; i < request.rawHeaders.length; i += 2) names.add(request.rawHeaders[i].toLowerCase());
    // Only what the server gave, plus what HTTP/1.1 itself needs.
    expect([...names].sort()).toEqual([...Object.keys(sent), 'host', 'content-length', 'connection'].sort());
    for (const [name, value] of Object.entries(sent)) expect(request.headers[name]).toBe(value);
    expect(request.headers['content-length']).toBe(String(Buffer.byteLength(BODY)));

    const result = await waitFor(() => connection.frames.find((f) => f.type === 'result'), 'a result frame');
    expect(result).toEqual({ type: 'result', id: 'msg_1', status: 200, durationMs: expect.any(Number), error: null });
    expect(Number.isInteger(result.durationMs)).toBe(true);
  });

  it('reports a local 500, a redirect as its status, and a timeout as status 0; forwards concurrently', async () => {
    receiver.behave = (id) => (id === 'slow' ? 'hang' : id === 'err' ? 500 : 302);
    const cli = start(['--timeout-ms', '400']);
    await cli.line(/^Ready!/);
    const connection = await backend.connection(0);
    connection.send(eventFrame('slow'));
    connection.send(eventFrame('err'));
    connection.send(eventFrame('moved'));
    // The 500 and the 302 are answered while the slow one still waits.
    expect(await cli.line(/--> 500 /)).toMatch(/--> 500 \[\d+ ms\]$/);
    expect(await cli.line(/--> 302 /)).toBeTruthy();
    expect(cli.stdout()).not.toMatch(/ERROR/);
    expect(await cli.line(/ERROR/)).toMatch(/--> ERROR timed out after 0\.4 s \[\d+ ms\]$/);
    await waitFor(() => connection.frames.length === 3, 'three results');
    const byId = Object.fromEntries(connection.frames.map((f) => [f.id, f]));
    expect(byId.err).toMatchObject({ status: 500, error: null });
    expect(byId.moved).toMatchObject({ status: 302, error: null });
    expect(byId.slow).toMatchObject({ status: 0, error: 'timed out after 0.4 s' });
    expect(byId.slow.durationMs).toBeGreaterThanOrEqual(390);
    // Never retried, not even the failed ones.
    expect(receiver.requests).toHaveLength(3);
  });

  it('takes the forward timeout from PAYMENTS_FORWARD_TIMEOUT_MS too', async () => {
    receiver.behave = () => 'hang';
    const cli = start([], { PAYMENTS_FORWARD_TIMEOUT_MS: '300' });
    await cli.line(/^Ready!/);
    (await backend.connection(0)).send(eventFrame('slow'));
    expect(await cli.line(/ERROR/)).toContain('timed out after 0.3 s');
  });

  it('reports a refused connection as status 0 with the error, without retrying', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const cli = runCli(['listen', '--api-key', API_KEY, '--forward-to', `http://127.0.0.1:${port}/hooks`], {
      PAYMENTS_BACKEND_URL: backend.url,
    });
    await cli.line(/^Ready!/);
    const connection = await backend.connection(0);
    connection.send(eventFrame('msg_1'));
    expect(await cli.line(/ERROR/)).toMatch(/--> ERROR connect ECONNREFUSED 127\.0\.0\.1:\d+ \[\d+ ms\]$/);
    const result = await waitFor(() => connection.frames[0], 'a result frame');
    expect(result).toMatchObject({
      type: 'result',
      id: 'msg_1',
      status: 0,
      error: expect.stringContaining('ECONNREFUSED'),
    });
  });

  it('answers an id it already forwarded with the first result, without forwarding it again', async () => {
    receiver.behave = () => 204;
    const cli = start();
    await cli.line(/^Ready!/);
    const connection = await backend.connection(0);
    connection.send(eventFrame('msg_1'));
    await waitFor(() => connection.frames.length === 1, 'the first result');
    connection.send(eventFrame('msg_1', '{"changed":true}'));
    await waitFor(() => connection.frames.length === 2, 'the second result');
    expect(connection.frames[1]).toEqual(connection.frames[0]);
    expect(connection.frames[1]).toMatchObject({ id: 'msg_1', status: 204 });
    expect(receiver.requests).toHaveLength(1);
    expect(cli.stdout().match(/transaction\.created/g)).toHaveLength(1);
  });

  it('prints notices as they are', async () => {
    const cli = start();
    await cli.line(/^Ready!/);
    (await backend.connection(0)).send({ type: 'notice', message: 'Events from 16:00 to 16:07 were dropped.' });
    expect(await cli.line(/^Events from/)).toBe('Events from 16:00 to 16:07 were dropped.');
  });

  it('reconnects to the same session after a drop, with backoff, and answers a redelivery from memory', async () => {
    const cli = start();
    await cli.line(/^Ready!/);
    const first = await backend.connection(0);
    first.send(eventFrame('msg_1'));
    await waitFor(() => receiver.requests.length === 1, 'the forward');
    // The server drops the connection before the result arrives; the next two upgrades are refused.
    backend.refuseUpgrades = [503, 503];
    const droppedAt = Date.now();
    first.socket.close(1001, 'going away');
    expect(await cli.line(/^Connection lost/)).toBe('Connection lost (code 1001 going away); reconnecting in 0.5 s…');
    const second = await backend.connection(1);
    expect(await cli.line(/^Reconnected\.$/)).toBeTruthy();
    expect(second.path).toBe('/api/cli/sessions/ses_1/stream');
    expect(second.authorization).toBe(`Bearer ${API_KEY}`);
    // Attempts after 0.5 s, then 1 s, then 2 s.
    const times = backend.upgrades.slice(1).map((u) => u.at);
    expect(times).toHaveLength(3);
    expect(times[0] - droppedAt).toBeGreaterThanOrEqual(450);
    expect(times[1] - times[0]).toBeGreaterThanOrEqual(950);
    expect(times[2] - times[1]).toBeGreaterThanOrEqual(1950);
    expect(cli.stderr().match(/Connection lost/g)).toHaveLength(1);

    second.send(eventFrame('msg_1'));
    const result = await waitFor(() => second.frames[0], 'the result of the redelivery');
    expect(result).toMatchObject({ type: 'result', id: 'msg_1', status: 200 });
    expect(receiver.requests).toHaveLength(1);

    // The backoff starts again at 0.5 s after a successful reconnect.
    const againAt = Date.now();
    second.socket.terminate();
    await backend.connection(2);
    expect(backend.upgrades[4].at - againAt).toBeLessThan(900);
  });

  it('exits 1 when the server closes with 4404 (the session has ended)', async () => {
    const cli = start();
    await cli.line(/^Ready!/);
    (await backend.connection(0)).socket.close(4404, 'session ended');
    expect(await cli.exited).toBe(1);
    expect(cli.stderr()).toContain('the session has ended');
    expect(backend.upgrades).toHaveLength(1);
  });

  it('exits 1 naming the key when the server closes with 4401', async () => {
    const cli = start();
    await cli.line(/^Ready!/);
    (await backend.connection(0)).socket.close(4401, 'the API key was revoked');
    expect(await cli.exited).toBe(1);
    expect(cli.stderr()).toMatch(/API key is not accepted \(the API key was revoked\)/);
    expect(cli.stdout() + cli.stderr()).not.toContain(API_KEY);
    expect(backend.upgrades).toHaveLength(1);
  });

  it('retries a reconnect refused with an HTTP status (a backend shutting down), until the server answers', async () => {
    const cli = start();
    await cli.line(/^Ready!/);
    backend.refuseUpgrades = [503, 404];
    (await backend.connection(0)).socket.close(1001);
    await cli.line(/^Reconnected\./);
    expect(backend.upgrades.length).toBeGreaterThanOrEqual(3);
  });

  it('closes with 1000 and exits 0 on SIGTERM and on Ctrl+C', async () => {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      const cli = start();
      await cli.line(/^Ready!/);
      const connection = backend.connections[backend.connections.length - 1];
      cli.kill(signal);
      expect(await connection.closed).toBe(1000);
      expect(await cli.exited).toBe(0);
    }
  });
});
