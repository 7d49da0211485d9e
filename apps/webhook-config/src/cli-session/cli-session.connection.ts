import type { Logger } from '@nestjs/common';
import type { ConsumeMessage } from 'amqplib';
import type { WebSocket } from 'ws';
import { cliEventFrame, type CliEventFrame, type CliSessionSigning } from './cli-event.request.js';
import type { CliConsumer } from './cli-session.queues.js';
import type { NewCliSessionLog } from './cli-session.repository.js';

/** Close codes of the protocol (docs/cli-protocol.md). */
export const CLOSE = {
  /** The developer stopped the command line: the session ends. */
  normal: 1000,
  /** The server shuts down: reconnect. */
  goingAway: 1001,
  /** The key is not accepted. */
  apiKey: 4401,
  /** No such live session. */
  notFound: 4404,
} as const;

/** Longest `error` kept from a result: a line a developer reads, not a stack trace. */
const ERROR_MAX = 500;

interface Pending {
  message: ConsumeMessage;
  frame: CliEventFrame;
}

/** A `result` frame, checked. */
interface ResultFrame {
  id: string;
  status: number;
  durationMs: number;
  error: string | null;
}

/**
 * One command line connected to its session: sends each event of the session's queue as an `event` frame, and when
 * the command line answers with its `result`, has it logged and only then acks the message — an event without a
 * result comes again to the next connection, with the same id.
 */
export class CliSessionConnection {
  private readonly pending = new Map<string, Pending>();
  private consumer?: CliConsumer;
  private readied = false;
  /** The server closed it (shutdown, no pong): whatever code the command line echoes, the session goes on. */
  closedByServer = false;
  alive = true;

  constructor(
    readonly sessionId: string,
    readonly merchantId: string,
    private readonly socket: WebSocket,
    private readonly signing: CliSessionSigning,
    private readonly log: (entry: NewCliSessionLog, then: () => void) => void,
    private readonly logger: Logger,
  ) {
    socket.on('pong', () => (this.alive = true));
    socket.on('message', (data, isBinary) => {
      this.alive = true;
      if (!isBinary) this.received(data.toString());
    });
  }

  /** Starts consuming; `ready` (and the notice of events dropped while away, if any) once the consumer is set up. */
  async attach(
    consume: (
      onMessage: (message: ConsumeMessage, consumer: CliConsumer) => void,
      onReady: (consumer: CliConsumer) => void,
    ) => Promise<CliConsumer>,
    notice?: string,
  ): Promise<void> {
    this.consumer = await consume(
      (message, consumer) => {
        this.consumer = consumer;
        this.deliver(message, consumer);
      },
      (consumer) => {
        this.consumer = consumer;
        if (this.readied) return; // set up again after a broker reconnect: the command line noticed nothing
        this.readied = true;
        this.send({ type: 'ready', sessionId: this.sessionId });
        if (notice) this.send({ type: 'notice', message: notice });
      },
    );
  }

  private deliver(message: ConsumeMessage, consumer: CliConsumer): void {
    const rendered = cliEventFrame(message.content, this.signing);
    if (!rendered.ok) {
      // Not a platform event (it could not be rendered for a webhook either): dropped, never sent.
      this.logger.warn({ msg: `listening session ${this.sessionId}: dropped a message: ${rendered.reason}` });
      consumer.ack(message);
      return;
    }
    const { frame } = rendered;
    const earlier = this.pending.get(frame.id);
    if (earlier) consumer.ack(earlier.message); // the same event again (a broker reconnect): keep one
    this.pending.set(frame.id, { message, frame });
    this.send(frame);
  }

  private received(text: string): void {
    const result = readResult(text);
    if (!result) return; // not a result frame: nothing the protocol asks of the server
    const pending = this.pending.get(result.id);
    if (!pending) return; // answered already (a result sent twice)
    this.pending.delete(result.id);
    const { frame, message } = pending;
    this.log(
      {
        sessionId: this.sessionId,
        webhookId: frame.id,
        eventId: frame.eventId,
        eventType: frame.eventType,
        subjectId: frame.subjectId,
        referenceId: frame.referenceId,
        status: result.status,
        durationMs: result.durationMs,
        error: result.error,
      },
      () => this.consumer?.ack(message),
    );
  }

  private send(frame: object): void {
    if (this.socket.readyState === this.socket.OPEN) this.socket.send(JSON.stringify(frame));
  }

  /** No pong since the last ping: the connection is gone without a close; drop it. */
  ping(): void {
    if (!this.alive) {
      this.closedByServer = true;
      this.socket.terminate();
      return;
    }
    this.alive = false;
    this.socket.ping();
  }

  close(code: number, reason: string): void {
    this.closedByServer = true;
    this.socket.close(code, reason);
  }

  /** The connection closed: stop consuming; what has no result yet waits in the queue for the next connection. */
  async detach(): Promise<void> {
    this.pending.clear();
    await this.consumer?.stop();
  }
}

function readResult(text: string): ResultFrame | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { type, id, status, durationMs, error } = value as Record<string, unknown>;
  if (type !== 'result' || typeof id !== 'string') return undefined;
  if (!Number.isInteger(status) || (status as number) < 0 || (status as number) > 999) return undefined;
  if (!Number.isInteger(durationMs) || (durationMs as number) < 0) return undefined;
  return {
    id,
    status: status as number,
    durationMs: Math.min(durationMs as number, 2_147_483_647),
    error: typeof error === 'string' && error.length > 0 ? error.slice(0, ERROR_MAX) : null,
  };
}
