import { describe, expect, it } from '@jest/globals';
import { readBaseConfig, readLogRetention, readRetryDelays } from './base.config.js';
import { ConfigError, EnvReader } from './env.reader.js';

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

  describe('placeholder secrets', () => {
    const devToken = 'development-platform-token';
    const devKey = Buffer.alloc(32, 'dev-only-key').toString('base64');
    const read = (env: NodeJS.ProcessEnv, development: boolean) => {
      const reader = new EnvReader(env, development);
      const values = {
        token: reader.secret('PLATFORM_TOKEN', { devDefault: devToken, minLength: 16 }),
        key: reader.base64Key('SECRET_ENCRYPTION_KEY', 32, { devDefault: devKey }),
      };
      return { reader, values };
    };

    it.each([
      ['the secret template', 'CHANGE_ME_AT_LEAST_16_CHARACTERS', 'CHANGE_ME_32_BYTES_BASE64'],
      ['CHANGE_ME in any case', 'change_me-please-0123456789', 'Change_Me'],
      ['the development defaults', devToken, devKey],
      ['the development key without its padding', devToken, devKey.replace(/=+$/, '')],
    ])('production refuses %s, naming the variable and never the value', (_, token, key) => {
      const { reader, values } = read({ PLATFORM_TOKEN: token, SECRET_ENCRYPTION_KEY: key }, false);
      expect(values).toEqual({ token: '', key: Buffer.alloc(0) });
      const error = fail(() => reader.done());
      expect(error.problems).toEqual([
        'PLATFORM_TOKEN is a placeholder (CHANGE_ME… or the development default); set a real secret',
        'SECRET_ENCRYPTION_KEY is a placeholder (CHANGE_ME… or the development default); set a real secret',
      ]);
      expect(error.message).not.toContain(token);
      expect(error.message).not.toContain(key);
    });

    it('production refuses the empty values of docker-compose.yml as unset', () => {
      const { reader } = read({ PLATFORM_TOKEN: '', SECRET_ENCRYPTION_KEY: ' ' }, false);
      expect(fail(() => reader.done()).problems).toEqual([
        'PLATFORM_TOKEN is required outside development',
        'SECRET_ENCRYPTION_KEY is required outside development',
      ]);
    });

    it('development uses the defaults, given or not, and lets the placeholders reach the usual checks', () => {
      const defaults = read({}, true);
      expect(defaults.values.token).toBe(devToken);
      expect(defaults.values.key.equals(Buffer.from(devKey, 'base64'))).toBe(true);
      expect(() => defaults.reader.done()).not.toThrow();
      const given = read({ PLATFORM_TOKEN: devToken, SECRET_ENCRYPTION_KEY: devKey }, true);
      expect(given.values.token).toBe(devToken);
      expect(() => given.reader.done()).not.toThrow();
      const template = read({ PLATFORM_TOKEN: 'CHANGE_ME_AT_LEAST_16_CHARACTERS' }, true);
      expect(template.values.token).toBe('CHANGE_ME_AT_LEAST_16_CHARACTERS');
    });

    it('production accepts a real secret that merely contains CHANGE_ME', () => {
      const key = Buffer.alloc(32, 9).toString('base64');
      const { reader, values } = read(
        { PLATFORM_TOKEN: 'prod-CHANGE_ME-0123456789', SECRET_ENCRYPTION_KEY: key },
        false,
      );
      expect(values.token).toBe('prod-CHANGE_ME-0123456789');
      expect(() => reader.done()).not.toThrow();
    });

    it('production refuses a URL whose password is CHANGE_ME…, and only in production', () => {
      const urls = {
        DATABASE_URL: 'postgres://payments:CHANGE_ME@postgres:5432/payments',
        AMQP_URL: 'amqps://payments:change_me%2Dtoo@rabbitmq:5671',
      };
      const reader = new EnvReader(urls, false);
      expect(reader.url('DATABASE_URL', ['postgres:'])).toBe('');
      expect(reader.url('AMQP_URL', ['amqps:'])).toBe('');
      expect(fail(() => reader.done()).problems).toEqual([
        "DATABASE_URL's password is a placeholder (CHANGE_ME… or the development default); set a real secret",
        "AMQP_URL's password is a placeholder (CHANGE_ME… or the development default); set a real secret",
      ]);
      expect(new EnvReader(urls, true).url('DATABASE_URL', ['postgres:'])).toBe(urls.DATABASE_URL);
      const real = new EnvReader({ DATABASE_URL: 'postgres://payments:s3cret@postgres/payments' }, false);
      expect(real.url('DATABASE_URL', ['postgres:'])).toBe('postgres://payments:s3cret@postgres/payments');
      expect(() => real.done()).not.toThrow();
    });
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
    const reader = new EnvReader({ T: '250', S: '20s', B: 'maybe', P: '70000', U: 'ftp://x', N: 'x' }, false);
    expect(reader.duration('T', { default: 1 })).toBe(250);
    expect(reader.duration('S', { default: 1 })).toBe(20_000);
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
      'LOW must be a duration in milliseconds (or with a unit ms, s, m, h, d) of at least 1 ms and at most 600000 ms',
      'HIGH must be a duration in milliseconds (or with a unit ms, s, m, h, d) of at least 1 ms and at most 600000 ms',
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

  it('reads IP addresses and CIDR ranges in canonical form, and refuses anything else without echoing it', () => {
    const read = (value?: string) => new EnvReader({ SENDERS: value }, false).addressRanges('SENDERS');
    expect(read(undefined)).toEqual([]);
    expect(read(' 203.0.113.7, 198.51.100.0/24 ,2001:DB8:0:0::1,2001:db8:1::/48, 203.0.113.7,')).toEqual([
      '203.0.113.7',
      '198.51.100.0/24',
      '2001:db8::1',
      '2001:db8:1::/48',
    ]);
    expect(read('0.0.0.0/0,::/0,192.0.2.1/32,2001:db8::1/128')).toEqual([
      '0.0.0.0/0',
      '::/0',
      '192.0.2.1/32',
      '2001:db8::1/128',
    ]);
    for (const value of [
      'egress.example',
      '203.0.113.7/24',
      '2001:db8::1/48',
      '10.0.0.0/33',
      '::/129',
      '1.2.3.4/8/8',
      'fe80::1%eth0',
      '010.0.0.1',
    ]) {
      const reader = new EnvReader({ SENDERS: `203.0.113.0/24,${value}` }, false);
      expect(reader.addressRanges('SENDERS')).toEqual([]);
      const error = fail(() => reader.done());
      expect(error.problems).toEqual([
        expect.stringMatching(/^SENDERS must be a comma-separated list of IP addresses/),
      ]);
      expect(error.message).not.toContain(value);
    }
  });

  it('reads an optional forward proxy http://host:port and never prints its credentials', () => {
    const read = (value?: string) => new EnvReader({ PROXY: value }, false).forwardProxy('PROXY');
    expect(read(undefined)).toBeUndefined();
    expect(read('http://egress.internal:3128')).toBe('http://egress.internal:3128');
    expect(read('http://user:s3cret@10.0.0.5:3128/')).toBe('http://user:s3cret@10.0.0.5:3128/');
    for (const value of [
      'https://user:s3cret@egress.internal:3128',
      'socks5://user:s3cret@h:1080',
      'http://user:s3cret@h:3128/path',
      'http://user:s3cret@h:3128?x=1',
      'user:s3cret@h:3128',
    ]) {
      const reader = new EnvReader({ PROXY: value }, false);
      expect(reader.forwardProxy('PROXY')).toBeUndefined();
      const error = fail(() => reader.done());
      expect(error.problems).toEqual([
        'PROXY must be a forward proxy URL http://host:port, without path, query or fragment',
      ]);
      expect(error.message).not.toContain('s3cret');
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
      amqpUrls: ['amqp://guest:guest@127.0.0.1:5672'],
      databaseStatementTimeoutMs: 10_000,
    });
  });

  it('reads AMQP_URL as one broker or the comma-separated nodes of one cluster, each checked, never echoed', () => {
    const urls = (value: string, production = false) => {
      const { reader, base } = readBaseConfig({ NODE_ENV: production ? 'production' : 'test', AMQP_URL: value });
      try {
        reader.done();
        return base.amqpUrls;
      } catch (error) {
        return (error as ConfigError).problems.filter((problem) => problem.startsWith('AMQP_URL'));
      }
    };
    expect(urls('amqps://pay:s3cret@rabbitmq:5671/payments')).toEqual(['amqps://pay:s3cret@rabbitmq:5671/payments']);
    expect(urls(' amqp://a:1@mq-1:5672/p, amqp://a:1@mq-2:5672/p ,amqp://a:1@mq-3/p')).toEqual([
      'amqp://a:1@mq-1:5672/p',
      'amqp://a:1@mq-2:5672/p',
      'amqp://a:1@mq-3/p',
    ]);
    const malformed = 'AMQP_URL must be a URL with scheme amqp: or amqps:, or several of them comma-separated';
    for (const bad of [
      'amqp://a:s3cret@mq-1,https://a:s3cret@mq-2',
      'amqp://a:s3cret@mq-1,,amqp://a:s3cret@mq-2',
      'mq-1',
    ]) {
      expect(urls(bad)).toEqual([malformed]);
    }
    expect(urls('amqp://a:s3cret@mq-1/payments,amqp://a:s3cret@mq-2/other')).toEqual([
      'AMQP_URL must list URLs of one service: every URL with the same path (vhost or database)',
    ]);
    expect(urls('amqp://a:s3cret@mq-1,amqp://a:CHANGE_ME@mq-2', true)).toEqual([
      "AMQP_URL's password is a placeholder (CHANGE_ME… or the development default); set a real secret",
    ]);
    const { reader } = readBaseConfig({ AMQP_URL: 'amqp://a:s3cret@mq-1,ftp://a:s3cret@mq-2' });
    expect(fail(() => reader.done()).message).not.toContain('s3cret');
  });

  it('reads DATABASE_STATEMENT_TIMEOUT as a duration; 0 turns the limit off; anything else is refused', () => {
    expect(readBaseConfig({ DATABASE_STATEMENT_TIMEOUT: '2s' }).base.databaseStatementTimeoutMs).toBe(2_000);
    expect(readBaseConfig({ DATABASE_STATEMENT_TIMEOUT: '0' }).base.databaseStatementTimeoutMs).toBe(0);
    const { reader } = readBaseConfig({ DATABASE_STATEMENT_TIMEOUT: 'soon' });
    expect(fail(() => reader.done()).problems).toEqual([
      expect.stringMatching(/^DATABASE_STATEMENT_TIMEOUT must be a duration/),
    ]);
  });

  it('reads WEBHOOK_LOG_RETENTION in days (or any unit), 30 days by default', () => {
    const retention = (env: NodeJS.ProcessEnv) => {
      const { reader } = readBaseConfig(env);
      const value = readLogRetention(reader, readRetryDelays(reader));
      reader.done();
      return value;
    };
    expect(retention({})).toBe(30 * 86_400_000);
    expect(retention({ WEBHOOK_LOG_RETENTION: '7d' })).toBe(7 * 86_400_000);
    expect(retention({ WEBHOOK_LOG_RETENTION: '200h' })).toBe(200 * 3_600_000);
    // Short schedules (the tests') allow short retentions.
    expect(retention({ WEBHOOK_LOG_RETENTION: '1h', WEBHOOK_RETRY_DELAYS: '1m,15m' })).toBe(3_600_000);
  });

  it('refuses a WEBHOOK_LOG_RETENTION that a repeat could outlive: it must exceed the retry schedule', () => {
    const problems = (env: NodeJS.ProcessEnv) => {
      const { reader } = readBaseConfig(env);
      readLogRetention(reader, readRetryDelays(reader));
      return fail(() => reader.done()).problems;
    };
    // The default schedule spans 5 days 7 h 16 min.
    expect(problems({ WEBHOOK_LOG_RETENTION: '5d' })).toEqual([
      "WEBHOOK_LOG_RETENTION must exceed the retry schedule's span (WEBHOOK_RETRY_DELAYS add up to 458160000 ms), " +
        'or a repeat could find its delivery removed',
    ]);
    expect(problems({ WEBHOOK_LOG_RETENTION: '2h', WEBHOOK_RETRY_DELAYS: '1h,1h' })).toEqual([
      expect.stringMatching(/^WEBHOOK_LOG_RETENTION must exceed the retry schedule's span/),
    ]);
    expect(problems({ WEBHOOK_LOG_RETENTION: 'a month' })).toEqual([
      expect.stringMatching(
        /^WEBHOOK_LOG_RETENTION must be a duration in milliseconds \(or with a unit ms, s, m, h, d\)/,
      ),
    ]);
  });

  it('reads LOG_FORMAT: json by default in production, pretty otherwise; anything else is refused by name', () => {
    const format = (env: NodeJS.ProcessEnv) => readBaseConfig(env).base.logFormat;
    expect([format({}), format({ NODE_ENV: 'development' }), format({ NODE_ENV: 'test' })]).toEqual([
      'json',
      'pretty',
      'pretty',
    ]);
    expect([format({ LOG_FORMAT: 'pretty' }), format({ NODE_ENV: 'test', LOG_FORMAT: 'json' })]).toEqual([
      'pretty',
      'json',
    ]);
    const { reader } = readBaseConfig({ LOG_FORMAT: 'xml' });
    expect(fail(() => reader.done()).problems).toEqual(['LOG_FORMAT must be one of json, pretty']);
  });

  it('rejects a DATABASE_URL that is not a postgres URL, without echoing it', () => {
    const { reader } = readBaseConfig({ DATABASE_URL: 'mysql://root:hunter2@db/x' });
    const error = fail(() => reader.done());
    expect(error.problems).toEqual(['DATABASE_URL must be a URL with scheme postgres: or postgresql:']);
    expect(error.message).not.toContain('hunter2');
  });

  it('reads DATABASE_READ_URL (unset: no replica) with DATABASE_READ_MAX_LAG, checked like DATABASE_URL, never echoed', () => {
    expect(readBaseConfig({}).base.databaseReplica).toBeUndefined();
    expect(readBaseConfig({ DATABASE_READ_MAX_LAG: '1s' }).base.databaseReplica).toBeUndefined();
    expect(readBaseConfig({ DATABASE_READ_URL: 'postgres://r:s3cret@replica/payments' }).base.databaseReplica).toEqual({
      url: 'postgres://r:s3cret@replica/payments',
      maxLagMs: 10_000,
    });
    expect(
      readBaseConfig({ DATABASE_READ_URL: 'postgresql://replica/payments', DATABASE_READ_MAX_LAG: '2s' }).base
        .databaseReplica,
    ).toEqual({ url: 'postgresql://replica/payments', maxLagMs: 2_000 });
    const problems = (env: NodeJS.ProcessEnv) => {
      const { reader } = readBaseConfig(env);
      const error = fail(() => reader.done());
      expect(error.message).not.toContain('hunter2');
      return error.problems;
    };
    expect(problems({ DATABASE_READ_URL: 'mysql://root:hunter2@db/x' })).toEqual([
      'DATABASE_READ_URL must be a URL with scheme postgres: or postgresql:',
    ]);
    expect(problems({ DATABASE_READ_URL: 'postgres://root:hunter2@db:port/x' })).toEqual([
      'DATABASE_READ_URL must be a valid URL',
    ]);
    expect(problems({ DATABASE_READ_URL: 'postgres://r:CHANGE_ME_hunter2@replica/payments' })).toEqual([
      "DATABASE_READ_URL's password is a placeholder (CHANGE_ME… or the development default); set a real secret",
    ]);
    expect(problems({ DATABASE_READ_URL: 'postgres://replica/payments', DATABASE_READ_MAX_LAG: 'soon' })).toEqual([
      expect.stringMatching(/^DATABASE_READ_MAX_LAG must be a duration/),
    ]);
  });
});
