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
