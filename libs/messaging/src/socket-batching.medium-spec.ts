import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { testEnv } from '#testing';
import amqplib from 'amqplib';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { amqplibSocket, batchWritesPerTurn } from './socket-batching.js';

describe('batchWritesPerTurn', () => {
  let server: Server;
  let port: number;
  const received: Buffer[][] = [];
  beforeAll(async () => {
    server = createServer((peer) => {
      const chunks: Buffer[] = [];
      received.push(chunks);
      peer.on('data', (chunk: Buffer) => chunks.push(chunk));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  async function writeFramesInOneTurn(batched: boolean): Promise<{ syscalls: number; bytes: string }> {
    const socket: Socket = connect(port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.setNoDelay(true);
    if (batched) batchWritesPerTurn(socket);
    let syscalls = 0;
    const handle = socket as unknown as { _write: Socket['_write']; _writev: Socket['_writev'] };
    const single = handle._write.bind(socket);
    const vector = handle._writev!.bind(socket);
    handle._write = (...args) => (syscalls++, single(...args));
    handle._writev = (...args) => (syscalls++, vector(...args));
    for (let i = 0; i < 50; i += 1) socket.write(`frame-${i};`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.destroy();
    const bytes = Buffer.concat(received.at(-1)!).toString();
    return { syscalls, bytes };
  }

  it("sends a turn's frames in one write, complete and in order", async () => {
    const expected = Array.from({ length: 50 }, (_, i) => `frame-${i};`).join('');
    const plain = await writeFramesInOneTurn(false);
    const batched = await writeFramesInOneTurn(true);
    expect(plain.bytes).toBe(expected);
    expect(batched.bytes).toBe(expected);
    expect(plain.syscalls).toBeGreaterThan(1);
    expect(batched.syscalls).toBe(1);
  });

  it('finds the socket under a real amqplib connection (breaks loudly if amqplib moves it)', async () => {
    const connection = await amqplib.connect(testEnv().amqpUrl);
    try {
      const socket = amqplibSocket(connection);
      expect(socket).toBeDefined();
      expect(typeof socket!.cork).toBe('function');
    } finally {
      await connection.close();
    }
  });
});
