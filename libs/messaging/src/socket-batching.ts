import type { Writable } from 'node:stream';

const BATCHED = Symbol('framesBatchedPerTurn');

/**
 * amqplib hands every frame (a publish, an ack) to the socket on its own: one syscall, and with TCP_NODELAY
 * one packet, each. This corks the socket at the first write of a turn and uncorks it on the next tick, so a
 * turn's frames leave in one `writev`. Nothing waits for a timer; a frame is at most one tick later.
 */
export function batchWritesPerTurn(socket: Writable): void {
  const marked = socket as Writable & { [BATCHED]?: true };
  if (marked[BATCHED]) return;
  marked[BATCHED] = true;
  const write = socket.write;
  let corked = false;
  const uncork = () => {
    corked = false;
    socket.uncork();
  };
  socket.write = function (this: Writable, ...args: Parameters<Writable['write']>) {
    if (!corked && !socket.destroyed) {
      corked = true;
      socket.cork();
      process.nextTick(uncork);
    }
    return write.apply(this, args);
  } as Writable['write'];
}

/** The socket under an amqplib connection (`ChannelModel.connection.stream`), when it has the expected shape. */
export function amqplibSocket(connection: unknown): Writable | undefined {
  const stream = (connection as { connection?: { stream?: unknown } } | undefined)?.connection?.stream;
  return stream && typeof (stream as Writable).cork === 'function' ? (stream as Writable) : undefined;
}
