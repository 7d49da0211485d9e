import { describe, expect, it } from '@jest/globals';
import { readBaseConfig } from './base.config.js';
import { ConfigError, EnvReader, parseDuration } from './env.reader.js';

const fail = (fn: () => void): ConfigError => {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
};

describe('EnvReader', () => {
  it('names a missing required variable and says it is needed outside development', () => {
    const reader = new EnvReader({}, false);
    reader.secret('PLATFORM_TOKEN', { devDefault: 'dev' });
    const error = fail(() => reader.done());
    expect(error.message).toContain('PLATFORM_TOKEN is required outside development');
  });

  it('uses the development default only in development', () => {
    const reader = new EnvReader({}, true);
    expect(reader.secret('PLATFORM_TOKEN', { devDefault: 'dev-token' })).toBe('dev-token');
    expect(() => reader.done()).not.toThrow();
  });

  it('never prints a secret value, even when it is invalid', () => {
    const secret = 'c3VwZXItc2VjcmV0LXZhbHVlLXdyb25nLWxlbmd0aA==';
    const reader = new EnvReader({ SECRET_ENCRYPTION_KEY: secret, PLATFORM_TOKEN: 'short' }, false);
    reader.base64Key('SECRET_ENCRYPTION_KEY', 32);
    reader.secret('PLATFORM_TOKEN', { minLength: 16 });
    const error = fail(() => reader.done());
    expect(error.problems).toEqual([
      'SECRET_ENCRYPTION_KEY must be 32 bytes encoded as base64',
      'PLATFORM_TOKEN must be at least 16 characters long',
    ]);
    expect(error.message).not.toContain(secret);
    expect(error.message).not.toContain('short');
  });

  it('accepts a 32-byte base64 key and returns its bytes', () => {
    const key = Buffer.alloc(32, 7);
    const reader = new EnvReader({ KEY: key.toString('base64') }, false);
    expect(reader.base64Key('KEY', 32).equals(key)).toBe(true);
  });

  it('parses retry delays with units and rejects junk', () => {
    expect(new EnvReader({}, false).durations('D', { default: '1m,15m,1h,2h,4h,24h' })).toEqual([
      60_000, 900_000, 3_600_000, 7_200_000, 14_400_000, 86_400_000,
    ]);
    expect(new EnvReader({ D: '500ms, 2s' }, false).durations('D', { default: '1m' })).toEqual([500, 2_000]);
    const reader = new EnvReader({ D: '1m,soon' }, false);
    reader.durations('D', { default: '1m' });
    expect(fail(() => reader.done()).problems[0]).toMatch(/^D must be a comma-separated list of durations/);
    const tooMany = new EnvReader({ D: Array(11).fill('1s').join(',') }, false);
    tooMany.durations('D', { default: '1m', maxCount: 10 });
    expect(fail(() => tooMany.done()).problems[0]).toContain('between 1 and 10');
  });

  it('parses durations, numbers, booleans and ports, collecting every problem', () => {
    expect(parseDuration('20s')).toBe(20_000);
    expect(parseDuration('20')).toBeUndefined();
    const reader = new EnvReader({ T: '250', B: 'maybe', P: '70000', U: 'ftp://x', N: 'x' }, false);
    expect(reader.duration('T', { default: 1 })).toBe(250);
    reader.bool('B', false);
    reader.port('P', 3000);
    reader.url('U', ['http:']);
    reader.int('N', { default: 1 });
    expect(fail(() => reader.done()).problems.map((p) => p.split(' ')[0])).toEqual(['B', 'P', 'U', 'N']);
  });

  it('bounds a duration where asked: WEBHOOK_TIMEOUT_MS above 10 minutes overflowed Node timers', () => {
    const reader = new EnvReader({ LOW: '0', HIGH: '600h', OK: '10m' }, false);
    expect(reader.duration('OK', { default: 1, min: 1, max: 600_000 })).toBe(600_000);
    reader.duration('LOW', { default: 1, min: 1, max: 600_000 });
    reader.duration('HIGH', { default: 1, min: 1, max: 600_000 });
    expect(fail(() => reader.done()).problems).toEqual([
      'LOW must be a duration in milliseconds (or with a unit ms, s, m, h) of at least 1 ms and at most 600000 ms',
      'HIGH must be a duration in milliseconds (or with a unit ms, s, m, h) of at least 1 ms and at most 600000 ms',
    ]);
  });

  it('reads which proxies to trust: none or their addresses, never "any"', () => {
    const read = (value?: string) => new EnvReader({ TRUST_PROXY: value }, false).proxyTrust('TRUST_PROXY');
    expect(read(undefined)).toBe(false);
    expect(read('false')).toBe(false);
    expect(read('10.0.0.1, 10.1.0.0/16,::1,loopback')).toEqual(['10.0.0.1', '10.1.0.0/16', '::1', 'loopback']);
    for (const value of ['true', 'yes', '1', 'proxy.example', '10.0.0.0/33', '10.0.0.1/8/8']) {
      const reader = new EnvReader({ TRUST_PROXY: value }, false);
      expect(reader.proxyTrust('TRUST_PROXY')).toBe(false);
      expect(fail(() => reader.done()).problems).toEqual([
        expect.stringMatching(/^TRUST_PROXY must be false or the addresses/),
      ]);
    }
  });
});

describe('readBaseConfig', () => {
  it('defaults to production and the contract URLs', () => {
    const { base } = readBaseConfig({});
    expect(base).toMatchObject({
      nodeEnv: 'production',
      isDevelopment: false,
      databaseUrl: 'postgres://postgres@127.0.0.1:5432/payments',
      amqpUrl: 'amqp://guest:guest@127.0.0.1:5672',
      databaseStatementTimeoutMs: 10_000,
    });
  });

  it('reads DATABASE_STATEMENT_TIMEOUT as a duration; 0 turns the limit off; anything else is refused', () => {
    expect(readBaseConfig({ DATABASE_STATEMENT_TIMEOUT: '2s' }).base.databaseStatementTimeoutMs).toBe(2_000);
    expect(readBaseConfig({ DATABASE_STATEMENT_TIMEOUT: '0' }).base.databaseStatementTimeoutMs).toBe(0);
    const { reader } = readBaseConfig({ DATABASE_STATEMENT_TIMEOUT: 'soon' });
    expect(fail(() => reader.done()).problems).toEqual([
      expect.stringMatching(/^DATABASE_STATEMENT_TIMEOUT must be a duration/),
    ]);
  });

  it('rejects a DATABASE_URL that is not a postgres URL, without echoing it', () => {
    const { reader } = readBaseConfig({ DATABASE_URL: 'mysql://root:hunter2@db/x' });
    const error = fail(() => reader.done());
    expect(error.problems).toEqual(['DATABASE_URL must be a URL with scheme postgres: or postgresql:']);
    expect(error.message).not.toContain('hunter2');
  });
});
