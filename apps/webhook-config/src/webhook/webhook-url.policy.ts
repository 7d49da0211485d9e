import { Inject, Injectable } from '@nestjs/common';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { isAllowedWebhookPort, isPublicAddress, portOf } from '#platform';
import { WebhookConfigConfig } from '../config/webhook-config.config.js';

export const MAX_WEBHOOK_URL_LENGTH = 2048;

/**
 * The authority of an http(s) URL as written: after the scheme and its slashes, up to the path, query or fragment
 * (a backslash ends it too, as the URL parser reads `\` as `/` in http(s) URLs). The parsed URL cannot show an
 * empty user info — it drops the `@` of `http://@host/` and `http://:@host/` — so user info is looked for here.
 */
function writtenAuthority(value: string): string {
  return value.replace(/^https?:[/\\]*/i, '').split(/[/\\?#]/, 1)[0];
}

const portProblem = (port: number) => `must use port 80, 443 or a port from 1024 to 65535, not ${port}`;

/**
 * The syntax rules of a webhook URL; returns what is wrong (a message for the `url` field) or undefined.
 * The URL is stored exactly as given, so it must not need trimming and must parse as an absolute http(s) URL.
 * It carries no user info, not even an empty one, and names no port but 80, 443 or 1024–65535.
 */
export function webhookUrlSyntaxProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return 'must be a text value';
  if (value.length === 0) return 'must not be empty';
  if (value.length > MAX_WEBHOOK_URL_LENGTH) return `must be at most ${MAX_WEBHOOK_URL_LENGTH} characters long`;
  if (value.trim() !== value) return 'must not start or end with spaces';
  if (/[\s\p{Cc}]/u.test(value)) return 'must not contain spaces or control characters';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    const port = /:(\d+)$/.exec(writtenAuthority(value))?.[1];
    if (port !== undefined && Number(port) > 65_535) return portProblem(Number(port));
    return 'must be an absolute URL starting with https:// or http://';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must start with https:// or http://';
  if (!/^https?:\/\//i.test(value)) return 'must be an absolute URL starting with https:// or http://';
  if (url.username || url.password || writtenAuthority(value).includes('@')) {
    return 'must not contain a user name or password (no "@" before the host name); verify the webhook signature instead';
  }
  if (!url.hostname) return 'must name a host';
  if (!isAllowedWebhookPort(portOf(url))) return portProblem(portOf(url));
  return undefined;
}

/** Resolves a host name to every address it has (IPv4 and IPv6). */
export type HostResolver = (hostname: string) => Promise<string[]>;
export const HOST_RESOLVER = Symbol('HOST_RESOLVER');

const RESOLVE_TIMEOUT_MS = 5_000;

/** The system resolver (what the dispatcher's connections use too), bounded in time. */
export const systemHostResolver: HostResolver = async (hostname) => {
  let timer: NodeJS.Timeout | undefined;
  try {
    const answers = await Promise.race([
      lookup(hostname, { all: true, verbatim: true }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(Object.assign(new Error('DNS lookup timed out'), { code: 'ETIMEOUT' })),
          RESOLVE_TIMEOUT_MS,
        );
      }),
    ]);
    return answers.map((answer) => answer.address);
  } finally {
    clearTimeout(timer);
  }
};

/**
 * Where a webhook may point: every address its host resolves to must be public (not loopback, private,
 * link-local, cloud metadata, ...), unless WEBHOOK_ALLOW_PRIVATE_TARGETS. The dispatcher checks again when it
 * connects (DNS can change), so this is the early, friendly check.
 */
@Injectable()
export class WebhookUrlPolicy {
  constructor(
    private readonly config: WebhookConfigConfig,
    @Inject(HOST_RESOLVER) private readonly resolve: HostResolver,
  ) {}

  /** What is wrong with the URL's target (a message for the `url` field), or undefined. Expects valid syntax. */
  async targetProblem(value: string): Promise<string | undefined> {
    if (this.config.allowPrivateTargets) return undefined;
    const host = new URL(value).hostname.replace(/^\[(.*)\]$/, '$1');
    let addresses: string[];
    if (isIP(host)) {
      addresses = [host];
    } else {
      try {
        addresses = await this.resolve(host);
      } catch (error) {
        const code = (error as { code?: string }).code;
        if (code === 'ENOTFOUND' || code === 'ENODATA') return `host ${host} does not exist (it has no DNS address)`;
        return `host ${host} could not be looked up right now; please try again in a moment`;
      }
      if (addresses.length === 0) return `host ${host} does not exist (it has no DNS address)`;
    }
    const blocked = addresses.filter((address) => !isPublicAddress(address));
    if (blocked.length > 0) {
      return `must point to a public internet address; ${host} is a private, loopback or link-local address${
        blocked[0] === host ? '' : ` (${blocked.join(', ')})`
      }, which webhooks may not reach`;
    }
    return undefined;
  }
}
