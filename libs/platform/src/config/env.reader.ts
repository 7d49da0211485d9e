import { isIP } from 'node:net';

/**
 * Reads environment variables into typed values, collecting every problem before failing.
 * Error messages name the variable and what is wrong with it, never the value (it may be a secret).
 */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Parses `1m`, `15m`, `1h`, `500ms`, `20s`, `30d` into milliseconds; undefined when malformed. */
function parseDuration(text: string): number | undefined {
  const match = /^(\d+)(ms|s|m|h|d)$/.exec(text.trim());
  if (!match) return undefined;
  return Number(match[1]) * DURATION_UNITS[match[2]];
}

export class EnvReader {
  private readonly problems: string[] = [];

  constructor(
    private readonly env: NodeJS.ProcessEnv,
    /** When true, `devDefault`s apply; otherwise a variable with only a dev default is required. */
    private readonly development: boolean,
  ) {}

  private raw(name: string): string | undefined {
    const value = this.env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  }

  private fail<T>(name: string, reason: string, fallback: T): T {
    this.problems.push(`${name} ${reason}`);
    return fallback;
  }

  /**
   * Outside development a secret may not be a placeholder: the templates' `CHANGE_ME…` (any case) or the development
   * default of the same variable (the apps' fixed development token and key). The problem names the variable only.
   */
  private placeholder(name: string, value: string, devDefault?: string): boolean {
    if (this.development) return false;
    const bare = (text: string) => text.replace(/=+$/, ''); // a base64 key may be written without its padding
    if (!/^change_me/i.test(value) && (devDefault === undefined || bare(value) !== bare(devDefault))) return false;
    this.problems.push(`${name} is a placeholder (CHANGE_ME… or the development default); set a real secret`);
    return true;
  }

  string(name: string, opts: { default?: string; devDefault?: string } = {}): string {
    const value = this.raw(name) ?? opts.default ?? (this.development ? opts.devDefault : undefined);
    if (value === undefined) {
      return this.fail(name, opts.devDefault !== undefined ? 'is required outside development' : 'is required', '');
    }
    return value;
  }

  /**
   * A secret: same as string, but refused outside development when it is a placeholder, and checked for a minimum
   * length. Its value is never reported.
   */
  secret(name: string, opts: { devDefault?: string; minLength?: number } = {}): string {
    const value = this.string(name, opts);
    if (value && this.placeholder(name, value, opts.devDefault)) return '';
    if (value && opts.minLength && value.length < opts.minLength) {
      return this.fail(name, `must be at least ${opts.minLength} characters long`, '');
    }
    return value;
  }

  url(name: string, protocols: readonly string[], opts: { default?: string } = {}): string {
    const value = this.string(name, opts);
    if (!value) return value;
    try {
      const url = new URL(value);
      if (!protocols.includes(url.protocol)) {
        return this.fail(name, `must be a URL with scheme ${protocols.join(' or ')}`, '');
      }
      if (url.password && this.placeholder(`${name}'s password`, decodeURIComponent(url.password))) return '';
    } catch {
      return this.fail(name, 'must be a valid URL', '');
    }
    return value;
  }

  /**
   * One URL, or several comma-separated (e.g. the nodes of one cluster), each checked as {@link url} checks one. They
   * must name the same path (for AMQP the vhost, for a database its name): one service, reached at several addresses.
   */
  urls(name: string, protocols: readonly string[], opts: { default?: string } = {}): string[] {
    const text = this.string(name, opts);
    if (!text) return [];
    const entries = text.split(',').map((entry) => entry.trim());
    const reason = `must be a URL with scheme ${protocols.join(' or ')}, or several of them comma-separated`;
    if (entries.some((entry) => !entry)) return this.fail(name, reason, []);
    const parsed = entries.map((entry) => URL.parse(entry));
    if (parsed.some((url) => !url || !protocols.includes(url.protocol))) return this.fail(name, reason, []);
    if (new Set(parsed.map((url) => url!.pathname)).size > 1) {
      return this.fail(name, 'must list URLs of one service: every URL with the same path (vhost or database)', []);
    }
    if (
      parsed.some((url) => url!.password && this.placeholder(`${name}'s password`, decodeURIComponent(url!.password)))
    ) {
      return [];
    }
    return entries;
  }

  int(name: string, opts: { default: number; min?: number; max?: number }): number {
    const text = this.raw(name);
    if (text === undefined) return opts.default;
    if (!/^\d+$/.test(text)) return this.fail(name, 'must be a whole number', opts.default);
    const value = Number(text);
    if ((opts.min !== undefined && value < opts.min) || (opts.max !== undefined && value > opts.max)) {
      return this.fail(name, `must be between ${opts.min ?? '-∞'} and ${opts.max ?? '∞'}`, opts.default);
    }
    return value;
  }

  port(name: string, defaultPort: number): number {
    return this.int(name, { default: defaultPort, min: 0, max: 65535 });
  }

  bool(name: string, defaultValue: boolean): boolean {
    const text = this.raw(name);
    if (text === undefined) return defaultValue;
    if (/^(true|1|yes)$/i.test(text)) return true;
    if (/^(false|0|no)$/i.test(text)) return false;
    return this.fail(name, 'must be true or false', defaultValue);
  }

  oneOf<T extends string>(name: string, values: readonly T[], defaultValue: T): T {
    const text = this.raw(name) ?? defaultValue;
    if (!(values as readonly string[]).includes(text)) {
      return this.fail(name, `must be one of ${values.join(', ')}`, defaultValue);
    }
    return text as T;
  }

  durations(name: string, opts: { default: string; minCount?: number; maxCount?: number }): number[] {
    const text = this.raw(name) ?? opts.default;
    const parts = text.split(',').map((p) => p.trim());
    const values = parts.map(parseDuration);
    if (values.some((v) => v === undefined || v <= 0)) {
      return this.fail(
        name,
        'must be a comma-separated list of durations such as 1m,15m,1h (units ms, s, m, h, d)',
        [],
      );
    }
    if ((opts.minCount && values.length < opts.minCount) || (opts.maxCount && values.length > opts.maxCount)) {
      return this.fail(name, `must list between ${opts.minCount ?? 1} and ${opts.maxCount ?? '∞'} durations`, []);
    }
    return values as number[];
  }

  duration(name: string, opts: { default: number; min?: number; max?: number }): number {
    const text = this.raw(name);
    if (text === undefined) return opts.default;
    const value = /^\d+$/.test(text) ? Number(text) : parseDuration(text);
    if (
      value === undefined ||
      (opts.min !== undefined && value < opts.min) ||
      (opts.max !== undefined && value > opts.max)
    ) {
      const bounds = [opts.min ? `at least ${opts.min} ms` : '', opts.max ? `at most ${opts.max} ms` : '']
        .filter(Boolean)
        .join(' and ');
      return this.fail(
        name,
        `must be a duration in milliseconds (or with a unit ms, s, m, h, d)${bounds ? ` of ${bounds}` : ''}`,
        opts.default,
      );
    }
    return value;
  }

  /** A base64 key of exactly `bytes` bytes, returned decoded; a placeholder is refused as for {@link secret}. */
  base64Key(name: string, bytes: number, opts: { devDefault?: string } = {}): Buffer {
    const text = this.string(name, opts);
    if (!text || this.placeholder(name, text, opts.devDefault)) return Buffer.alloc(0);
    const decoded = Buffer.from(text, 'base64');
    if (decoded.length !== bytes || decoded.toString('base64').replace(/=+$/, '') !== text.replace(/=+$/, '')) {
      return this.fail(name, `must be ${bytes} bytes encoded as base64`, Buffer.alloc(0));
    }
    return decoded;
  }

  /**
   * Which reverse proxies to trust for X-Forwarded-For/-Proto: `false` (none, the default), or their addresses,
   * CIDR ranges and the ranges `loopback`, `linklocal`, `uniquelocal` (comma-separated). The client address is then
   * the last one that did not come from a trusted proxy. `true` is refused: trusting every hop takes the left-most
   * X-Forwarded-For entry, which the client writes itself.
   */
  proxyTrust(name: string): false | string[] {
    const text = this.raw(name);
    if (text === undefined || /^(false|no)$/i.test(text)) return false;
    const entries = text.split(',').map((entry) => entry.trim());
    const isProxy = (entry: string) => {
      if (['loopback', 'linklocal', 'uniquelocal'].includes(entry)) return true;
      const [address, bits, ...rest] = entry.split('/');
      const family = isIP(address);
      if (family === 0 || rest.length > 0) return false;
      return bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128));
    };
    if (!entries.every(isProxy)) {
      return this.fail(
        name,
        'must be false or the addresses of the reverse proxies in front of the app (IP addresses, CIDR ranges, ' +
          'loopback, linklocal or uniquelocal; comma-separated); true is not accepted because it would trust any ' +
          'X-Forwarded-For a client sends',
        false,
      );
    }
    return entries;
  }

  /**
   * A comma-separated list of IP addresses and CIDR ranges, IPv4 and IPv6 (empty when unset), in canonical form:
   * IPv6 lower-case and compressed, duplicates dropped. A range is written with its first address
   * (`203.0.113.0/24`); `203.0.113.7/24` is refused, as it may mean the range or a mistyped single address.
   */
  addressRanges(name: string): string[] {
    const entries = (this.raw(name) ?? '')
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean);
    const ranges = entries.map(canonicalAddressRange);
    if (ranges.some((range) => range === undefined)) {
      return this.fail(
        name,
        'must be a comma-separated list of IP addresses and CIDR ranges (IPv4 or IPv6, e.g. 203.0.113.7, ' +
          '198.51.100.0/24, 2001:db8::/48; a range written with its first address)',
        [],
      );
    }
    return [...new Set(ranges as string[])];
  }

  /**
   * An optional forward proxy, `http://host:port` (user info allowed: it becomes Proxy-Authorization); undefined
   * when unset. A path, query or fragment is refused: a forward proxy has none, so it would be a mistake.
   */
  forwardProxy(name: string): string | undefined {
    const text = this.raw(name);
    if (text === undefined) return undefined;
    const reason = 'must be a forward proxy URL http://host:port, without path, query or fragment';
    try {
      const url = new URL(text);
      if (url.protocol !== 'http:' || !url.hostname || url.pathname !== '/' || url.search || url.hash) {
        return this.fail(name, reason, undefined);
      }
    } catch {
      return this.fail(name, reason, undefined);
    }
    return text;
  }

  /**
   * Records a problem of a value that is valid alone but not with another (e.g. a retention shorter than a schedule it
   * must outlast); the message names the variable and must not quote a secret's value.
   */
  refuse(name: string, reason: string): void {
    this.problems.push(`${name} ${reason}`);
  }

  /** Throws a ConfigError listing every problem found so far. */
  done(): void {
    if (this.problems.length > 0) throw new ConfigError([...this.problems]);
  }
}

/** `address` or `address/prefix` in canonical text; undefined when it is neither, or a range's host bits are set. */
function canonicalAddressRange(entry: string): string | undefined {
  const [address, prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if ((family !== 4 && family !== 6) || rest.length > 0 || address.includes('%')) return undefined;
  // The URL parser writes IPv6 in its canonical form (RFC 5952: lower case, longest zero run compressed).
  const canonical = family === 4 ? address : new URL(`http://[${address}]/`).hostname.slice(1, -1);
  if (prefix === undefined) return canonical;
  const width = family === 4 ? 32 : 128;
  if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > width) return undefined;
  const hostBits = (1n << BigInt(width - Number(prefix))) - 1n;
  return (addressValue(canonical, family) & hostBits) === 0n ? `${canonical}/${Number(prefix)}` : undefined;
}

/** The number an IPv4 or canonical (hexadecimal, compressed) IPv6 address stands for. */
function addressValue(address: string, family: 4 | 6): bigint {
  if (family === 4) return address.split('.').reduce((value, part) => (value << 8n) | BigInt(part), 0n);
  const [head, tail] = address.split('::');
  const groups = (part?: string) => (part ? part.split(':') : []);
  const zeros = tail === undefined ? 0 : 8 - groups(head).length - groups(tail).length;
  return [...groups(head), ...Array<string>(zeros).fill('0'), ...groups(tail)].reduce(
    (value, group) => (value << 16n) | BigInt(`0x${group}`),
    0n,
  );
}
