import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { Agent, type Dispatcher } from 'undici';
import { isAllowedWebhookPort, isPublicAddress, portOf } from '#platform';
import { WebhookDispatcherConfig } from '../config/webhook-dispatcher.config.js';
import { coalescedLookup, type AllAddressesLookup } from './coalesced-lookup.js';
import { DeadlineList } from './deadline-list.js';
import { EgressProxyHealth, egressProxyAgent } from './egress-proxy.agent.js';

/** Every lookup of the process goes through one coalescing wrapper (see coalescedLookup). */
const lookupAll = coalescedLookup(dnsLookup as AllAddressesLookup);

/** The outcome of one POST: an HTTP status, or 0 with the reason when no complete response arrived. */
export interface SendResult {
  status: number;
  durationMs: number;
  error: string | null;
  responseExcerpt: string | null;
  /** The answer's `Retry-After` header as sent (seconds or an HTTP-date), if any. */
  retryAfter?: string;
  /** With no complete response, a low-cardinality class of why (tracing's `error.type`): `timeout`, or the code. */
  errorType?: string;
}

const EXCERPT_CHARS = 1_000;
/** Enough bytes for EXCERPT_CHARS characters of any UTF-8 text. */
const EXCERPT_BYTES = EXCERPT_CHARS * 4;
/** More of a response body than this is not read (the response counts as complete). */
const MAX_BODY_BYTES = 64 * 1024;
const MAX_CACHED_TARGETS = 10_000;

const PUBLIC_ONLY = 'webhooks may only target public addresses';

/** The URL's address or port is one webhooks may not reach. */
class BlockedAddressError extends Error {
  readonly code = 'EBLOCKED';
}

/**
 * Posts webhook bodies with undici. Redirects are never followed; the whole exchange (connect, headers, body)
 * must finish within WEBHOOK_TIMEOUT_MS. Every connection's resolved address is checked at connect time,
 * so a host that passed the check at configuration time cannot rebind to a private address later. The port
 * rule of the configuration (80, 443 or 1024–65535) is applied again before each POST, whatever
 * WEBHOOK_ALLOW_PRIVATE_TARGETS says.
 */
@Injectable()
export class HttpSender implements OnApplicationShutdown {
  private readonly logger = new Logger(HttpSender.name);
  /** One connection pool per lane: a hanging receiver's thousands of open connections never slow down the
   * pool (and its per-request connection search) that healthy webhooks use, even on the same origin. */
  private readonly agents: Record<'normal' | 'slow', Dispatcher>;
  private readonly allowPrivate: boolean;
  private readonly timeoutMs: number;
  private readonly deadlines: DeadlineList;
  private readonly targets = new Map<string, Target>();

  constructor(config: WebhookDispatcherConfig) {
    this.allowPrivate = config.allowPrivateTargets;
    this.timeoutMs = config.timeoutMs;
    this.deadlines = new DeadlineList(config.timeoutMs);
    if (this.allowPrivate) {
      this.logger.warn(
        'WEBHOOK_ALLOW_PRIVATE_TARGETS=true: deliveries may reach loopback and private addresses. Development and tests only!',
      );
    }
    const pool = { keepAliveTimeout: 10_000, headersTimeout: this.timeoutMs, bodyTimeout: this.timeoutMs };
    const proxy = config.egressProxy;
    let agent = (): Dispatcher =>
      new Agent({ connect: { lookup: this.guardedLookup, timeout: this.timeoutMs }, ...pool });
    if (proxy) {
      const proxyHost = new URL(proxy).host; // never its user info
      this.logger.log(`Deliveries leave through the egress proxy ${proxyHost} (CONNECT to the checked address)`);
      const health = new EgressProxyHealth(proxyHost);
      const lookup = (hostname: string, done: (error: Error | null, addresses: LookupAddress[]) => void) =>
        this.guardedLookup(hostname, { all: true }, (error, addresses) => done(error, addresses as LookupAddress[]));
      agent = () => egressProxyAgent({ proxy, timeoutMs: this.timeoutMs, lookup, health, pool });
    }
    this.agents = { normal: agent(), slow: agent() };
  }

  private readonly guardedLookup: LookupFunction = (hostname, options, callback) => {
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : (options.family ?? 0);
    lookupAll(hostname, { family, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const allowed = addresses.filter((a) => this.allowPrivate || isPublicAddress(a.address));
      if (allowed.length === 0) {
        return callback(
          new BlockedAddressError(`${hostname} resolves only to private or loopback addresses; ${PUBLIC_ONLY}`),
          [],
        );
      }
      if (options.all) return callback(null, allowed);
      callback(null, allowed[0].address, allowed[0].family);
    });
  };

  /**
   * POSTs `body` and resolves with the outcome; never rejects. Uses undici's dispatch API with a handler of its
   * own rather than `request()`: no response stream, async iterator, AbortSignal or timer per request — one
   * {@link DeadlineList} enforces the whole-exchange timeout for every request of the process.
   */
  send(
    url: string,
    headers: Record<string, string>,
    body: string,
    lane: 'normal' | 'slow' = 'normal',
  ): Promise<SendResult> {
    const started = performance.now();
    return new Promise<SendResult>((resolve) => {
      const finish = (status: number, error: unknown, responseExcerpt: string | null, retryAfter?: string) => {
        resolve({
          status,
          durationMs: Math.round(performance.now() - started),
          error: error === null ? null : this.describe(error),
          responseExcerpt,
          ...(retryAfter === undefined ? {} : { retryAfter }),
          ...(error === null ? {} : { errorType: errorTypeOf(error) }),
        });
      };
      try {
        const target = this.target(url);
        const exchange = new Exchange(finish);
        exchange.cancelDeadline = this.deadlines.add(() => exchange.expire());
        this.agents[lane].dispatch(
          { origin: target.origin, path: target.path, method: 'POST', headers, body },
          exchange,
        );
      } catch (error) {
        finish(0, error, null);
      }
    });
  }

  /** The parsed URL of a webhook, checked against the port rule and, when it names an IP, the address rules. */
  private target(url: string): Target {
    let target = this.targets.get(url);
    if (!target) {
      const parsed = new URL(url);
      target = { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}`, blocked: this.blocked(parsed) };
      if (this.targets.size >= MAX_CACHED_TARGETS) this.targets.clear();
      this.targets.set(url, target);
    }
    if (target.blocked) throw new BlockedAddressError(target.blocked);
    return target;
  }

  /** Why the rules block a webhook URL — its port, or the IP address it names — or undefined. */
  private blocked(url: URL): string | undefined {
    const port = portOf(url);
    if (!isAllowedWebhookPort(port)) {
      return `port ${port} is not allowed; webhooks may only use port 80, 443 or a port from 1024 to 65535`;
    }
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (!this.allowPrivate && isIP(host) !== 0 && !isPublicAddress(host)) {
      return `${host} is a private or loopback address; ${PUBLIC_ONLY}`;
    }
    return undefined;
  }

  private describe(error: unknown): string {
    const e = error as SendError;
    const code = e.code ?? e.cause?.code;
    if (isTimeout(e)) {
      return `Timeout: no complete response within ${this.timeoutMs} ms`;
    }
    switch (code) {
      case 'EEGRESS': // through WEBHOOK_EGRESS_PROXY: the message says what failed (egress-proxy.agent.ts)
        return storableText(e.message ?? 'Egress proxy failed');
      case 'EBLOCKED':
        return `Blocked: ${e.message ?? e.cause?.message}`;
      case 'ECONNREFUSED':
        return 'Connection refused: nothing accepts connections at this address and port';
      case 'ECONNRESET':
      case 'UND_ERR_SOCKET':
        return 'Connection closed by the receiver before a complete response';
      case 'ENOTFOUND':
      case 'EAI_AGAIN':
        return 'Host not found: the domain name does not resolve';
      case 'ERR_SSL_WRONG_VERSION_NUMBER':
        return `TLS handshake failed: the server does not speak HTTPS on this port (plain HTTP?) (${code})`;
      default:
        if (code && code in CERTIFICATE_PROBLEMS) {
          return `TLS certificate refused: ${CERTIFICATE_PROBLEMS[code]} (${code})`;
        }
        return storableText(`${code ?? e.name ?? 'Error'}: ${(e.message ?? String(error)).slice(0, 300)}`);
    }
  }

  /** After the consumers stopped (beforeApplicationShutdown): attempts still arriving until then can still POST. */
  async onApplicationShutdown(): Promise<void> {
    await Promise.all([this.agents.normal.close(), this.agents.slow.close()]);
  }
}

/**
 * Why a certificate was refused, for the log (Node's codes; its own messages are OpenSSL's, or advise Node flags).
 * Shop owners fix these at their host: renew, install the intermediate certificates, or use the certificate's name.
 */
const CERTIFICATE_PROBLEMS: Record<string, string> = {
  CERT_HAS_EXPIRED: 'it has expired',
  CERT_NOT_YET_VALID: 'it is not valid yet',
  CERT_REVOKED: 'it was revoked',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'it is self-signed, not issued by a trusted certificate authority',
  SELF_SIGNED_CERT_IN_CHAIN: 'its chain ends in a self-signed certificate no trusted authority issued',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'its chain is incomplete (an intermediate certificate is missing) or untrusted',
  UNABLE_TO_GET_ISSUER_CERT: 'its chain is incomplete (an intermediate certificate is missing) or untrusted',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'its chain is incomplete (an intermediate certificate is missing) or untrusted',
  ERR_TLS_CERT_ALTNAME_INVALID: 'it is not issued for this host name',
};

type SendError = { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };

/** The whole exchange, or one of its steps, ran out of time. */
function isTimeout(e: SendError): boolean {
  const code = e.code ?? e.cause?.code;
  return (
    e.name === 'TimeoutError' ||
    e.name === 'AbortError' ||
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT' ||
    code === 'UND_ERR_CONNECT_TIMEOUT'
  );
}

/** `timeout`, else the error's code (`ECONNREFUSED`, `EBLOCKED`, a certificate's), else its name: never its text. */
function errorTypeOf(error: unknown): string {
  const e = (error ?? {}) as SendError;
  if (isTimeout(e)) return 'timeout';
  return e.code ?? e.cause?.code ?? e.name ?? '_OTHER';
}

interface Target {
  origin: string;
  path: string;
  /** Why the rules block the URL (its port, or the IP address it names), or undefined. */
  blocked?: string;
}

/** The whole exchange took longer than WEBHOOK_TIMEOUT_MS. */
class DeadlineError extends Error {
  override readonly name = 'TimeoutError';
}

/**
 * One POST's undici handler: keeps the status and the start of the response body, and settles exactly once — on
 * the response's end, an error, the deadline, or once MAX_BODY_BYTES of body arrived (the rest is not read).
 */
class Exchange implements Dispatcher.DispatchHandler {
  cancelDeadline?: () => void;
  private controller?: Dispatcher.DispatchController;
  private status = 0;
  private retryAfter?: string;
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private settled = false;
  private expired = false;

  constructor(
    private readonly finish: (status: number, error: unknown, excerpt: string | null, retryAfter?: string) => void,
  ) {}

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.expired) controller.abort(new DeadlineError());
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    this.status = statusCode;
    const retryAfter = headers['retry-after'];
    this.retryAfter = Array.isArray(retryAfter) ? retryAfter[0] : retryAfter;
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.settled) return;
    if (this.size < EXCERPT_BYTES) this.chunks.push(chunk);
    this.size += chunk.length;
    if (this.size >= MAX_BODY_BYTES) {
      this.settle(this.status, null);
      controller.abort(new Error('response body not read past its start'));
    }
  }

  onResponseEnd(): void {
    this.settle(this.status, null);
  }

  onResponseError(_controller: Dispatcher.DispatchController | undefined, error: Error): void {
    this.settle(0, error);
  }

  /** The deadline passed: answer now, and stop the request (at once, or as soon as it has a socket). */
  expire(): void {
    this.cancelDeadline = undefined;
    this.expired = true;
    this.settle(0, new DeadlineError());
    this.controller?.abort(new DeadlineError());
  }

  private settle(status: number, error: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.cancelDeadline?.();
    const excerpt =
      error === null && this.size > 0
        ? storableText(Buffer.concat(this.chunks).toString('utf8').slice(0, EXCERPT_CHARS))
        : null;
    this.finish(status, error, excerpt, error === null ? this.retryAfter : undefined);
  }
}

/** NUL, and a UTF-16 surrogate without its partner (e.g. a character the excerpt cut in half). */
const UNSTORABLE = /\0|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Text a receiver controls, made storable in a PostgreSQL text column: PostgreSQL refuses NUL and invalid UTF-8,
 * and one such value would fail the whole batch of log rows it is written with. Each is replaced by U+FFFD.
 */
function storableText(text: string): string {
  return text.replace(UNSTORABLE, '\uFFFD');
}
