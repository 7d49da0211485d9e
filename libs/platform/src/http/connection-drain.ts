import type { Server } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';

/** After the listener closed, how long a connection still open may take to bring its last request. */
export const LAST_REQUEST_MS = 1_000;
/** Before the listener closes, how long answers keep their connection, so that no client is between two. */
export const SETTLE_MS = 250;

/**
 * Ends a server's connections at shutdown without resetting one that a client may be using. A server that closes an
 * idle keep-alive connection races the client's next request on it, and closing the listener resets the connections
 * the kernel completed but the server did not accept yet. So (the app's shutdown hook answers, and its answers say
 * `Connection: close` unless {@link keepsConnections}):
 * 1. the listener stays open for up to `drainMs`, or until no connection is left: a client whose connection closed
 *    after an answer gets an answer on the next one too;
 * 2. for {@link SETTLE_MS} answers keep their connection, so that every client still here is on an accepted one;
 * 3. the listener closes, without Node's closing of idle connections, and each connection still open may bring one
 *    more request (up to {@link LAST_REQUEST_MS}), answered with `Connection: close`; a new one is refused.
 * Only a connection that brought nothing in all that time is closed idle (by the server's close that follows).
 */
export class ConnectionDrain {
  /** True while answers should leave the connection open (step 2). */
  keepsConnections = false;
  private readonly open = new Set<Socket>();
  private changed: () => void = () => undefined;

  constructor(
    private readonly server: Server,
    private readonly drainMs: number,
  ) {
    server.on('connection', (socket: Socket) => {
      this.open.add(socket);
      socket.once('close', () => {
        this.open.delete(socket);
        this.changed();
      });
    });
  }

  async run(): Promise<void> {
    await this.untilNoneOpen(this.drainMs);
    this.keepsConnections = true;
    await this.untilNoneOpen(SETTLE_MS);
    this.keepsConnections = false;
    // http.Server#close would also close every idle connection at once, fresh ones whose request is on its way.
    NetServer.prototype.close.call(this.server);
    await this.untilNoneOpen(Math.min(LAST_REQUEST_MS, this.drainMs));
  }

  private async untilNoneOpen(ms: number): Promise<void> {
    if (this.open.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
      this.changed = () => {
        if (this.open.size === 0) resolve();
      };
    });
    clearTimeout(timer);
    this.changed = () => undefined;
  }
}
