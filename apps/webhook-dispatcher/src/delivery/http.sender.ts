import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { Agent, request } from 'undici';
import { isPublicAddress } from '#platform';
import { WebhookDispatcherConfig } from '../config/webhook-dispatcher.config.js';

/** The outcome of one POST: an HTTP status, or 0 with the reason when no complete response arrived. */
export interface SendResult {
  status: number;
  durationMs: number;
  error: string | null;
  responseExcerpt: string | null;
}

const EXCERPT_CHARS = 1_000;
/** More of a response body than this is not read (the response counts as complete). */
const MAX_BODY_BYTES = 64 * 1024;

class BlockedAddressError extends Error {
  readonly code = 'EBLOCKED';
}

/**
 * Posts webhook bodies with undici. Redirects are never followed; the whole exchange (connect, headers, body)
 * must finish within WEBHOOK_TIMEOUT_MS. Every connection's resolved address is checked at connect time,
 * so a host that passed the check at configuration time cannot rebind to a private address later.
 */
@Injectable()
export class HttpSender implements OnModuleDestroy {
  private readonly logger = new Logger(HttpSender.name);
  /** One connection pool per lane: a hanging receiver's thousands of open connections never slow down the
   * pool (and its per-request connection search) that healthy webhooks use, even on the same origin. */
  private readonly agents: Record<'normal' | 'slow', Agent>;
  private readonly allowPrivate: boolean;
  private readonly timeoutMs: number;

  constructor(config: WebhookDispatcherConfig) {
    this.allowPrivate = config.allowPrivateTargets;
    this.timeoutMs = config.timeoutMs;
    if (this.allowPrivate) {
      this.logger.warn(
        'WEBHOOK_ALLOW_PRIVATE_TARGETS=true: deliveries may reach loopback and private addresses. Development and tests only!',
      );
    }
    const agent = () =>
      new Agent({
        connect: { lookup: this.guardedLookup, timeout: this.timeoutMs },
        keepAliveTimeout: 10_000,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
    this.agents = { normal: agent(), slow: agent() };
  }

  private readonly guardedLookup: LookupFunction = (hostname, options, callback) => {
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : (options.family ?? 0);
    dnsLookup(hostname, { family, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, []);
      const allowed = addresses.filter((a) => this.allowPrivate || isPublicAddress(a.address));
      if (allowed.length === 0) {
        return callback(new BlockedAddressError(`${hostname} resolves only to private or loopback addresses`), []);
      }
      if (options.all) return callback(null, allowed);
      callback(null, allowed[0].address, allowed[0].family);
    });
  };

  async send(
    url: string,
    headers: Record<string, string>,
    body: string,
    lane: 'normal' | 'slow' = 'normal',
  ): Promise<SendResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    try {
      const target = new URL(url);
      const host = target.hostname.replace(/^\[|\]$/g, '');
      if (!this.allowPrivate && isIP(host) && !isPublicAddress(host)) {
        throw new BlockedAddressError(`${host} is a private or loopback address`);
      }
      const response = await request(target, {
        method: 'POST',
        headers,
        body,
        dispatcher: this.agents[lane],
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      const excerpt = await readExcerpt(response.body);
      return { status: response.statusCode, durationMs: elapsed(), error: null, responseExcerpt: excerpt };
    } catch (error) {
      return { status: 0, durationMs: elapsed(), error: this.describe(error), responseExcerpt: null };
    }
  }

  private describe(error: unknown): string {
    const e = error as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
    const code = e.code ?? e.cause?.code;
    if (
      e.name === 'TimeoutError' ||
      e.name === 'AbortError' ||
      code === 'UND_ERR_HEADERS_TIMEOUT' ||
      code === 'UND_ERR_BODY_TIMEOUT' ||
      code === 'UND_ERR_CONNECT_TIMEOUT'
    ) {
      return `Timeout: no complete response within ${this.timeoutMs} ms`;
    }
    switch (code) {
      case 'EBLOCKED':
        return `Blocked: ${e.message ?? e.cause?.message}; webhooks may only target public addresses`;
      case 'ECONNREFUSED':
        return 'Connection refused: nothing accepts connections at this address and port';
      case 'ECONNRESET':
      case 'UND_ERR_SOCKET':
        return 'Connection closed by the receiver before a complete response';
      case 'ENOTFOUND':
      case 'EAI_AGAIN':
        return 'Host not found: the domain name does not resolve';
      default:
        return `${code ?? e.name ?? 'Error'}: ${(e.message ?? String(error)).slice(0, 300)}`;
    }
  }

  async onModuleDestroy(): Promise<void> {
    await Promise.all([this.agents.normal.close(), this.agents.slow.close()]);
  }
}

async function readExcerpt(body: AsyncIterable<Buffer> & { destroy?: () => void }): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= MAX_BODY_BYTES) {
      body.destroy?.();
      break;
    }
  }
  if (size === 0) return null;
  return Buffer.concat(chunks).toString('utf8').slice(0, EXCERPT_CHARS);
}
