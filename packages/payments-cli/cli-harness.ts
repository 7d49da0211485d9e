// Test helpers: the real `payments` process, a small backend speaking docs/cli-protocol.md (HTTP + a `ws` server)
// and a local receiver the events are forwarded to.
import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { WebSocketServer, type WebSocket } from 'ws';

const SCRIPT = fileURLToPath(new URL('./payments.js', import.meta.url));
export const API_KEY = 'pk_' + 'A'.repeat(43);
export const SECRET = 'whsec_' + Buffer.alloc(32, 7).toString('base64');

export async function waitFor<T>(check: () => T | undefined | false, what: string, timeoutMs = 10_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export interface Cli {
  stdout: () => string;
  stderr: () => string;
  line: (pattern: RegExp) => Promise<string>;
  exited: Promise<number | null>;
  kill: (signal: NodeJS.Signals) => void;
}

export function runCli(args: string[], env: Record<string, string | undefined> = {}): Cli {
  const { PAYMENTS_API_KEY: _key, PAYMENTS_BACKEND_URL: _url, PAYMENTS_FORWARD_TIMEOUT_MS: _t, ...rest } = process.env;
  const child = spawn(process.execPath, [SCRIPT, ...args], {
    env: { ...rest, ...env } as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk) => (out += chunk));
  child.stderr.on('data', (chunk) => (err += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  clis.add(child);
  return {
    stdout: () => out,
    stderr: () => err,
    line: (pattern) =>
      waitFor(() => (out + err).split('\n').find((l) => pattern.test(l)), `a line ${pattern} in:\n${out}${err}`),
    exited,
    kill: (signal) => child.kill(signal),
  };
}

const clis = new Set<ReturnType<typeof spawn>>();
export function killClis() {
  for (const child of clis) if (child.exitCode === null) child.kill('SIGKILL');
  clis.clear();
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  rawHeaders: string[];
  body: Buffer;
}

function readBody(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
  });
}

async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

export interface Connection {
  socket: WebSocket;
  path: string;
  authorization: string | undefined;
  at: number;
  frames: Record<string, unknown>[];
  closed: Promise<number>;
  send: (frame: unknown) => void;
}

type Answer = { status: number; body: unknown };

/** The backend's side of docs/cli-protocol.md, scripted by each test. */
export class FakeBackend {
  url = '';
  requests: RecordedRequest[] = [];
  connections: Connection[] = [];
  /** Upgrade attempts, refused ones included. */
  upgrades: { path: string; at: number }[] = [];
  sessionAnswer: Answer = {
    status: 201,
    body: {
      id: 'ses_1',
      secret: SECRET,
      merchantId: 'm1',
      integrationId: 'i1',
      events: ['transaction', 'subscription'],
      version: '2026-08-20',
      contentType: 'json',
      forwardTo: 'x',
      keepEventsSeconds: 300,
    },
  };
  triggerAnswer: Answer = {
    status: 202,
    body: { eventId: 'evt_123', eventType: 'transaction.created', sessions: 2 },
  };
  /** The HTTP status to refuse the next upgrades with (one entry each), else accepted. */
  refuseUpgrades: number[] = [];
  sendReady = true;
  private server = http.createServer((req, res) => void this.handle(req, res));
  private wss = new WebSocketServer({ noServer: true });

  async start() {
    this.server.on('upgrade', (req, socket, head) => {
      this.upgrades.push({ path: req.url ?? '', at: Date.now() });
      const refuse = this.refuseUpgrades.shift();
      if (refuse) {
        socket.end(`HTTP/1.1 ${refuse} Refused\r\ncontent-length: 0\r\nconnection: close\r\n\r\n`);
        return;
      }
      this.wss.handleUpgrade(req, socket, head, (ws) => {
        const frames: Record<string, unknown>[] = [];
        ws.on('message', (data) => frames.push(JSON.parse(String(data))));
        const connection: Connection = {
          socket: ws,
          path: req.url ?? '',
          authorization: req.headers.authorization,
          at: Date.now(),
          frames,
          closed: new Promise((resolve) => ws.on('close', (code) => resolve(code))),
          send: (frame) => ws.send(JSON.stringify(frame)),
        };
        this.connections.push(connection);
        if (this.sendReady) connection.send({ type: 'ready', sessionId: 'ses_1' });
      });
    });
    this.url = await listen(this.server);
    return this;
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse) {
    const body = await readBody(req);
    this.requests.push({
      method: req.method ?? '',
      path: req.url ?? '',
      headers: req.headers,
      rawHeaders: req.rawHeaders,
      body,
    });
    const answer =
      req.method === 'POST' && req.url === '/api/cli/sessions'
        ? this.sessionAnswer
        : req.method === 'POST' && req.url === '/api/cli/trigger'
          ? this.triggerAnswer
          : {
              status: 404,
              body: { type: 'urn:problem:not-found', title: 'Not Found', status: 404, detail: 'no route' },
            };
    const problem = answer.status >= 400;
    res.writeHead(answer.status, { 'content-type': problem ? 'application/problem+json' : 'application/json' });
    res.end(JSON.stringify(answer.body));
  }

  connection(n: number): Promise<Connection> {
    return waitFor(() => this.connections[n], `WebSocket connection #${n + 1}`);
  }

  async stop() {
    for (const client of this.wss.clients) client.terminate();
    this.wss.close();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

/** The local URL events are forwarded to: records each request; `behave` picks the answer by the webhook-id. */
export class Receiver {
  url = '';
  requests: RecordedRequest[] = [];
  behave: (webhookId: string) => number | 'hang' = () => 200;
  private server = http.createServer(async (req, res) => {
    const body = await readBody(req);
    this.requests.push({
      method: req.method ?? '',
      path: req.url ?? '',
      headers: req.headers,
      rawHeaders: req.rawHeaders,
      body,
    });
    const behaviour = this.behave(String(req.headers['webhook-id']));
    if (behaviour === 'hang') return;
    res.writeHead(behaviour, { location: '/elsewhere' });
    res.end('answer body');
  });

  async start() {
    this.url = (await listen(this.server)) + '/hooks';
    return this;
  }

  async stop() {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
