import {
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  type OnModuleDestroy,
} from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { isWebhookContentType, isWebhookVersion } from '#domain';
import { CLI_SESSION_KEEP_MS } from '#messaging';
import { DomainException, PlatformMetrics, SecretCipher } from '#platform';
import { Gauge } from 'prom-client';
import { CliKeyLookup } from './cli-key.lookup.js';
import { CLOSE, CliSessionConnection } from './cli-session.connection.js';
import { CliSessionQueues } from './cli-session.queues.js';
import {
  CLI_SESSION_SEEN_EVERY_MS,
  CliSessionRepository,
  type CliSessionRow,
  type NewCliSessionLog,
} from './cli-session.repository.js';

const STREAM_PATH = /^\/api\/cli\/sessions\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\/stream$/;
/** The largest frame a command line may send (a result is a few hundred bytes). */
const MAX_FRAME_BYTES = 16 * 1024;
/** Results are logged in batches: at most this many, or after this long. */
const LOG_BATCH = 200;
const LOG_EVERY_MS = 100;
/** Old sessions and log entries are forgotten this often. */
const FORGET_EVERY_MS = 10 * 60_000;

/**
 * `payments listen`'s stream (docs/cli-protocol.md): the WebSocket `GET /api/cli/sessions/{id}/stream` on
 * webhook-config's HTTP server. The upgrade is accepted for that path only; the key and the session are checked
 * then, and a refusal is a close with 4401 or 4404 and the reason (a WebSocket client sees no HTTP status). Each
 * connection consumes its session's queue (CliSessionConnection); every 15 s the server pings each connection (one
 * that did not answer the last ping is dropped) and notes which sessions are connected.
 */
@Injectable()
export class CliSessionGateway implements OnApplicationBootstrap, OnModuleDestroy, OnApplicationShutdown {
  private readonly logger = new Logger(CliSessionGateway.name);
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });
  private readonly connections = new Set<CliSessionConnection>();
  private timers: NodeJS.Timeout[] = [];
  private logs: Array<{ entry: NewCliSessionLog; then: () => void }> = [];
  private logTimer?: NodeJS.Timeout;
  private closing = false;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly keys: CliKeyLookup,
    private readonly sessions: CliSessionRepository,
    private readonly queues: CliSessionQueues,
    private readonly cipher: SecretCipher,
    platform: PlatformMetrics,
  ) {
    const connections = this.connections;
    new Gauge({
      name: 'cli_session_connections',
      help: 'payments listen command lines connected to this webhook-config process (sum over the processes)',
      registers: [platform.registry],
      collect() {
        this.set(connections.size);
      },
    });
  }

  onApplicationBootstrap(): void {
    const server = this.adapterHost.httpAdapter.getHttpServer() as import('node:http').Server;
    server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      if (!STREAM_PATH.test(new URL(request.url ?? '/', 'http://x').pathname)) {
        socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
        return;
      }
      if (this.closing) {
        // Shutting down: the command line tries again, and reaches another process or this one restarted.
        socket.end('HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
        return;
      }
      this.wss.handleUpgrade(request, socket, head, (ws) => void this.opened(ws, request));
    });
    this.timers = [
      setInterval(() => void this.heartbeat(), CLI_SESSION_SEEN_EVERY_MS),
      setInterval(() => void this.forget(), FORGET_EVERY_MS),
    ];
    for (const timer of this.timers) timer.unref();
  }

  private async opened(ws: WebSocket, request: IncomingMessage): Promise<void> {
    const sessionId = STREAM_PATH.exec(new URL(request.url ?? '/', 'http://x').pathname)![1]!;
    let session: CliSessionRow | undefined;
    try {
      const principal = await this.keys.require(CliKeyLookup.presented(request.headers));
      session = await this.sessions.findLive(sessionId, principal.integrationId);
    } catch (error) {
      if (error instanceof DomainException) ws.close(CLOSE.apiKey, closeReason(error.message));
      else {
        this.logger.warn(`listening session ${sessionId}: could not check the key: ${(error as Error).message}`);
        ws.close(1011, 'Try again');
      }
      return;
    }
    if (!session || !isWebhookVersion(session.version) || !isWebhookContentType(session.contentType)) {
      ws.close(CLOSE.notFound, 'No such live session: it ended, or it is not of this API key’s integration.');
      return;
    }
    if (ws.readyState !== ws.OPEN) return; // gone while the key and the session were checked
    const connection = new CliSessionConnection(
      session.id,
      session.merchantId,
      ws,
      {
        id: session.id,
        version: session.version,
        contentType: session.contentType,
        secret: this.cipher.decrypt(session.secretCiphertext, session.id),
      },
      (entry, then) => this.queueLog(entry, then),
      this.logger,
    );
    this.connections.add(connection);
    let attaching: Promise<void> = Promise.resolve();
    ws.on('close', (code) => {
      // Only the command line ends its session (Ctrl+C: 1000), not the echo of a close the server began.
      const ended = code === CLOSE.normal && !connection.closedByServer;
      this.connections.delete(connection);
      // A connection that closes while its consumer is being set up stops that consumer once it is there.
      void attaching
        .catch(() => undefined)
        .then(() => connection.detach())
        .then(() => this.sessions.disconnected(session.id, ended))
        .catch((error: Error) => this.logger.warn(`listening session ${session.id}: ${error.message}`));
    });
    attaching = this.sessions
      .connected(session.id)
      .then((awaySince) =>
        connection.attach(
          (onMessage, onReady) => this.queues.consume(session, onMessage, onReady),
          droppedNotice(awaySince, new Date()),
        ),
      );
    try {
      await attaching;
      this.logger.log({ msg: `listening session ${session.id} connected`, merchantId: session.merchantId });
    } catch (error) {
      this.logger.warn(`listening session ${session.id} could not start: ${(error as Error).message}`);
      ws.close(1011, 'Try again');
    }
  }

  /** A result to log; `then` (the ack) once it is written. Written in batches. */
  private queueLog(entry: NewCliSessionLog, then: () => void): void {
    this.logs.push({ entry, then });
    if (this.logs.length >= LOG_BATCH) void this.flushLogs();
    else this.logTimer ??= setTimeout(() => void this.flushLogs(), LOG_EVERY_MS);
  }

  private async flushLogs(): Promise<void> {
    clearTimeout(this.logTimer);
    this.logTimer = undefined;
    const batch = this.logs;
    this.logs = [];
    if (batch.length === 0) return;
    try {
      await this.sessions.addLogs(batch.map(({ entry }) => entry));
    } catch (error) {
      // The events were forwarded already: their log entries are lost, not the events (sending them again would
      // forward them twice).
      this.logger.warn(
        `could not log ${batch.length} forwarded events of listening sessions: ${(error as Error).message}`,
      );
    }
    for (const { then } of batch) then();
  }

  private async heartbeat(): Promise<void> {
    for (const connection of this.connections) connection.ping();
    try {
      await this.sessions.seen([...new Set([...this.connections].map((c) => c.sessionId))]);
    } catch (error) {
      this.logger.warn(`could not note the connected listening sessions: ${(error as Error).message}`);
    }
  }

  private async forget(): Promise<void> {
    try {
      const deleted = await this.sessions.forgetOld();
      if (deleted > 0) this.logger.log(`forgot ${deleted} old listening sessions and log entries`);
    } catch (error) {
      this.logger.warn(`could not forget old listening sessions: ${(error as Error).message}`);
    }
  }

  /**
   * Shutting down (the first of Nest's shutdown hooks, before the HTTP server drains, which waits for these sockets
   * too): every command line is told to reconnect (to another process, or to this one restarted); no new one is taken.
   */
  async onModuleDestroy(): Promise<void> {
    this.closing = true;
    for (const timer of this.timers) clearInterval(timer);
    for (const connection of this.connections) connection.close(CLOSE.goingAway, 'Server shutting down');
    await this.flushLogs();
  }

  /** What did not close by now is dropped. */
  onApplicationShutdown(): void {
    for (const client of this.wss.clients) client.terminate();
    this.wss.close();
  }
}

/** A close reason: at most 123 bytes of UTF-8. */
function closeReason(text: string): string {
  let reason = text;
  while (Buffer.byteLength(reason) > 123) reason = reason.slice(0, -2) + '…';
  return reason;
}

/**
 * The notice of a session whose command line was away longer than its queue waits: its queue was deleted with the
 * events in it, and none came in while it was gone.
 */
export function droppedNotice(awaySince: Date, now: Date): string | undefined {
  if (now.getTime() - awaySince.getTime() <= CLI_SESSION_KEEP_MS) return undefined;
  return (
    `No command line was connected from ${awaySince.toISOString()} to ${now.toISOString()}, longer than the ` +
    `${CLI_SESSION_KEEP_MS / 60_000} minutes events wait: the events of that time were dropped. Fetch what changed ` +
    'through the read API (updatedAt).'
  );
}
