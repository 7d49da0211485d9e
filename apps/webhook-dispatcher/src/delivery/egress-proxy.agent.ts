import { Logger } from '@nestjs/common';
import type { LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { Pool, ProxyAgent, type buildConnector } from 'undici';

/** Resolves a host name to the addresses a webhook may reach (the SSRF guard), or fails with the reason. */
export type GuardedLookup = (
  hostname: string,
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

/** A delivery that failed at the egress proxy; its message is the reason, as the webhook log shows it. */
class EgressError extends Error {
  readonly code = 'EEGRESS';
}

/** What the proxy's answer to CONNECT means when it is not 200 (undici reports only the status, in its message). */
const PROXY_ANSWER = /^Proxy response \((\d+)\)/;
const OUR_SIDE = 'a problem on our side, not at your server';

/**
 * The dispatcher of deliveries through the forward proxy WEBHOOK_EGRESS_PROXY: undici's ProxyAgent, tunnelling
 * http and https alike with CONNECT. The proxy never resolves a webhook's host name: each new connection's host is
 * resolved and checked here (`lookup`, the same SSRF guard as without a proxy), and the tunnel is opened to a
 * checked address — the next one if the proxy cannot reach it. The request keeps the host name: its Host header,
 * and for https the TLS server name and the certificate check. Connections are pooled per origin (host name and
 * port), as without a proxy.
 */
export function egressProxyAgent(options: {
  proxy: string;
  timeoutMs: number;
  lookup: GuardedLookup;
  health: EgressProxyHealth;
  pool: Pool.Options;
}): ProxyAgent {
  const { timeoutMs, lookup, health } = options;
  return new ProxyAgent({
    ...options.pool,
    uri: options.proxy,
    proxyTunnel: true,
    connectTimeout: timeoutMs,
    // Connections to the proxy: a failure there is the platform's, and is told apart from the receiver's.
    clientFactory: (origin, clientOptions) => {
      const connect = (clientOptions as { connect: buildConnector.connector }).connect;
      return new Pool(origin, {
        ...clientOptions,
        headersTimeout: timeoutMs,
        connect: (connectOptions, callback) =>
          connect(connectOptions, (error, socket) =>
            error ? callback(health.unreachable(error), null) : callback(null, socket!),
          ),
      });
    },
    // Connections to receivers: ProxyAgent's tunnel, opened to the checked address instead of the host name.
    factory: (origin, poolOptions) => {
      const tunnel = (poolOptions as { connect: buildConnector.connector }).connect;
      return new Pool(origin, { ...poolOptions, connect: pinnedTunnel(tunnel, lookup, health) });
    },
  });
}

function pinnedTunnel(
  tunnel: buildConnector.connector,
  lookup: GuardedLookup,
  health: EgressProxyHealth,
): buildConnector.connector {
  return (options, callback) => {
    const { hostname, protocol } = options;
    lookup(hostname, (error, addresses) => {
      if (error) return callback(error, null);
      const port = options.port || (protocol === 'https:' ? '443' : '80');
      const servername = options.servername || (isIP(hostname) === 0 ? hostname : undefined);
      const open = (index: number) => {
        const { address, family } = addresses[index];
        const host = `${family === 6 ? `[${address}]` : address}:${port}`;
        tunnel({ ...options, hostname: address, host, port, servername }, (tunnelError, socket) => {
          if (!tunnelError) {
            health.reachable();
            return callback(null, socket!);
          }
          const answer = PROXY_ANSWER.exec(tunnelError.message)?.[1];
          // The proxy's own refusal, or it dropped the connection before the tunnel was open (ProxyConnectionError).
          if (answer === '403' || answer === '407' || (tunnelError as { code?: string }).code === 'UND_ERR_PRX_CONN') {
            const refusal = answer === '407' ? 'authentication required (407)' : 'tunnel forbidden (403)';
            return callback(health.unreachable(answer ? new EgressError(refusal) : tunnelError), null);
          }
          if (answer === undefined) return callback(tunnelError, null); // TLS with the receiver, timeouts, …
          // The proxy could not reach this address (refused, unreachable): the next one, as a direct connection would.
          health.reachable();
          if (index + 1 < addresses.length) return open(index + 1);
          callback(
            new EgressError(`Connection failed: the egress proxy could not connect to ${host} (it answered ${answer})`),
            null,
          );
        });
      };
      open(0);
    });
  };
}

/**
 * Whether the egress proxy answers, for the process log: one error when it stops answering, one line when it
 * answers again — not one per delivery. Every failed delivery is logged in the webhook log as usual.
 */
export class EgressProxyHealth {
  private readonly logger = new Logger('EgressProxy');
  private down = false;

  /** `proxy` without its user info (credentials never reach a log). */
  constructor(private readonly proxy: string) {}

  /** The proxy could not be reached, or refused the tunnel: the error the delivery fails with. */
  unreachable(cause: Error): EgressError {
    const code = (cause as { code?: string }).code;
    const reason =
      cause instanceof EgressError
        ? cause.message
        : code === 'ECONNREFUSED'
          ? 'connection refused'
          : code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'ETIMEDOUT'
            ? 'no connection in time'
            : code === 'ENOTFOUND' || code === 'EAI_AGAIN'
              ? 'its host name does not resolve'
              : code === 'UND_ERR_PRX_CONN'
                ? 'it closed the connection before the tunnel was open'
                : (code ?? cause.message);
    if (!this.down) {
      this.down = true;
      this.logger.error(`Egress proxy ${this.proxy} failing (${reason}): deliveries fail until it answers`);
    }
    const what = cause instanceof EgressError ? 'refused' : 'unreachable';
    return new EgressError(`Egress proxy ${what}: ${reason} — ${OUR_SIDE}`, { cause });
  }

  /** A tunnel opened. */
  reachable(): void {
    if (!this.down) return;
    this.down = false;
    this.logger.log(`Egress proxy ${this.proxy} answers again`);
  }
}
