import { connect as tcpConnect } from 'node:net';

/**
 * `AMQP_URL` names one broker, or the nodes of one RabbitMQ cluster, comma-separated (CONTRACT §1). Every app
 * connects to one of them and moves to the next when its node goes away.
 */
export function splitAmqpUrls(text: string): string[] {
  return text
    .split(',')
    .map((url) => url.trim())
    .filter(Boolean);
}

/** `host:port` of a broker URL: how logs and health name a node (never the login in the URL). */
export function amqpNodeLabel(url: string): string {
  const parsed = new URL(url);
  return `${parsed.hostname}:${parsed.port || (parsed.protocol === 'amqps:' ? '5671' : '5672')}`;
}

/**
 * The list turned by a random offset: each process starts at another node, so a cluster's connections spread over
 * its nodes instead of all landing on the first one; the order after it (the failover order) stays the same.
 */
export function rotateRandomly<T>(items: readonly T[], random = Math.random): T[] {
  const offset = Math.floor(random() * items.length);
  return [...items.slice(offset), ...items.slice(0, offset)];
}

/**
 * Whether a node's AMQP port accepts a TCP connection within `timeoutMs`. Opens and closes the socket before any
 * protocol byte is sent: RabbitMQ logs nothing for it.
 */
export function nodeAnswers(url: string, timeoutMs: number): Promise<boolean> {
  const { hostname } = new URL(url);
  const port = Number(amqpNodeLabel(url).split(':').pop());
  return new Promise((resolve) => {
    const socket = tcpConnect({ host: hostname.replace(/^\[|\]$/g, ''), port });
    const done = (up: boolean) => {
      socket.destroy();
      resolve(up);
    };
    let settled = false;
    const settle = (up: boolean) => {
      if (settled) return;
      settled = true;
      done(up);
    };
    // On time-out, decide a turn later: after a stalled event loop, the timer and an already completed connect come
    // due together, and timers run first — without the turn, a busy process would call a live node down.
    socket.setTimeout(timeoutMs, () => setImmediate(() => settle(false)));
    socket.once('connect', () => settle(true));
    socket.once('error', () => settle(false));
  });
}
