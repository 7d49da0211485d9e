import { createServer, type AddressInfo } from 'node:net';

/** A loopback port the kernel has just handed out as free (for a server a test starts: a receiver, a proxy, an app). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * A free loopback port in [20000, 32000) for a server a test starts as its own process (a RabbitMQ node, a PostgreSQL
 * replica): below Linux's ephemeral range (32768–60999), where the kernel picks the
 * local ports of outgoing connections — a port found free there can be taken by any connection before the node
 * listens on it. A RabbitMQ node's distribution port must also stay below 55535 (its CLI tools listen at + 10,000),
 * and 25672 is RabbitMQ's default one. `taken`: ports already handed out, never given again.
 */
export async function freeServerPort(taken: Set<number> = new Set()): Promise<number> {
  for (let tries = 0; tries < 200; tries += 1) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (taken.has(port) || port === 25_672) continue;
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (free) {
      taken.add(port);
      return port;
    }
  }
  throw new Error('no free loopback port');
}
