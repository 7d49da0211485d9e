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

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/** Parses `1m`, `15m`, `1h`, `500ms`, `20s` into milliseconds; undefined when malformed. */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d+)(ms|s|m|h)$/.exec(text.trim());
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

  string(name: string, opts: { default?: string; devDefault?: string } = {}): string {
    const value = this.raw(name) ?? opts.default ?? (this.development ? opts.devDefault : undefined);
    if (value === undefined) {
      return this.fail(name, opts.devDefault !== undefined ? 'is required outside development' : 'is required', '');
    }
    return value;
  }

  /** A secret: same as string, but additionally checks a minimum length. Its value is never reported. */
  secret(name: string, opts: { devDefault?: string; minLength?: number } = {}): string {
    const value = this.string(name, opts);
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
    } catch {
      return this.fail(name, 'must be a valid URL', '');
    }
    return value;
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
      return this.fail(name, 'must be a comma-separated list of durations such as 1m,15m,1h (units ms, s, m, h)', []);
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
        `must be a duration in milliseconds (or with a unit ms, s, m, h)${bounds ? ` of ${bounds}` : ''}`,
        opts.default,
      );
    }
    return value;
  }

  /** A base64 key of exactly `bytes` bytes, returned decoded. */
  base64Key(name: string, bytes: number, opts: { devDefault?: string } = {}): Buffer {
    const text = this.string(name, opts);
    if (!text) return Buffer.alloc(0);
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

  /** Throws a ConfigError listing every problem found so far. */
  done(): void {
    if (this.problems.length > 0) throw new ConfigError([...this.problems]);
  }
}
