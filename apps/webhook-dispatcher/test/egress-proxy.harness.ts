import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getCACertificates, setDefaultCACertificates, type TLSSocket } from 'node:tls';
import { freePort } from '#testing';

export interface Tinyproxy {
  /** http://127.0.0.1:port */
  url: string;
  /** The client connections it accepted so far (one log line each). */
  connections(): number;
  /** The request lines it received, e.g. `CONNECT 127.0.0.1:4711 HTTP/1.1`. */
  requests(): string[];
  stop(): Promise<void>;
}

/**
 * A real forward proxy: Debian's tinyproxy in the foreground (-d) on a free loopback port, with its own
 * configuration and log in a temporary directory. No ConnectPort line, so CONNECT is allowed to any port.
 */
export async function startTinyproxy(): Promise<Tinyproxy> {
  if (spawnSync('tinyproxy', ['-v']).status !== 0) {
    throw new Error('tinyproxy is required for this test and was not found: apt-get install -y tinyproxy');
  }
  const dir = mkdtempSync(join(tmpdir(), 'tinyproxy-'));
  const port = await freePort();
  const log = join(dir, 'tinyproxy.log');
  const config = join(dir, 'tinyproxy.conf');
  writeFileSync(
    config,
    [
      `Port ${port}`,
      'Listen 127.0.0.1',
      'Timeout 30',
      'MaxClients 200',
      `LogFile "${log}"`,
      'LogLevel Connect',
      'Allow 127.0.0.1',
      'DisableViaHeader Yes',
    ].join('\n'),
  );
  const child = spawn('tinyproxy', ['-d', '-c', config], { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const lines = () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n') : []);
  const connectionLines = () => lines().filter((line) => / Connect \(file descriptor \d+\)/.test(line)).length;
  // Ready once it accepted a connection and logged it; that probe is not counted by connections().
  const deadline = Date.now() + 10_000;
  for (;;) {
    const accepted = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (accepted) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`tinyproxy did not start: ${lines().join('\n')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  while (connectionLines() === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  const probes = connectionLines();
  return {
    url: `http://127.0.0.1:${port}`,
    connections: () => connectionLines() - probes,
    requests: () =>
      lines()
        .map((line) => / Request \(file descriptor \d+\): (.*)$/.exec(line)?.[1])
        .filter((request): request is string => request !== undefined),
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface LocalhostReceiver {
  /** http://localhost:port or https://localhost:port (its certificate is for the name localhost). */
  url: string;
  requests: Array<{ path: string; host?: string; servername?: string }>;
  /** Trusts the receiver's self-signed certificate in this process (every TLS client without its own `ca`). */
  trust(): void;
  stop(): Promise<void>;
}

/**
 * A receiver on 127.0.0.1 addressed by the name localhost, answering 200; for https with a self-signed certificate
 * for `localhost` (openssl). It records the Host header and the TLS server name of each request.
 */
export async function startLocalhostReceiver(protocol: 'http' | 'https'): Promise<LocalhostReceiver> {
  const dir = mkdtempSync(join(tmpdir(), 'localhost-receiver-'));
  const [keyFile, certFile] = [join(dir, 'key.pem'), join(dir, 'cert.pem')];
  let cert = '';
  if (protocol === 'https') {
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyFile, '-out', certFile, '-days', '1'].concat([
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=DNS:localhost',
      ]),
      { stdio: 'ignore' },
    );
    cert = readFileSync(certFile, 'utf8');
  }
  const requests: LocalhostReceiver['requests'] = [];
  const handle = (request: IncomingMessage, response: ServerResponse) => {
    request.resume();
    request.on('end', () => {
      const servername = (request.socket as Partial<TLSSocket>).servername || undefined;
      requests.push({ path: request.url ?? '/', host: request.headers.host, servername });
      response.writeHead(200, { 'content-type': 'text/plain' }).end(`ok over ${protocol}`);
    });
  };
  const server: Server =
    protocol === 'https' ? createHttpsServer({ key: readFileSync(keyFile), cert }, handle) : createHttpServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const defaults = getCACertificates('default');
  let trusted = false;
  return {
    url: `${protocol}://localhost:${(server.address() as AddressInfo).port}`,
    requests,
    trust: () => {
      trusted = true;
      setDefaultCACertificates([...defaults, cert]);
    },
    stop: async () => {
      if (trusted) setDefaultCACertificates(defaults);
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
