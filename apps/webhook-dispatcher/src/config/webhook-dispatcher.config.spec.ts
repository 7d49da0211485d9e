import { ConfigError } from '#platform';
import { loadWebhookDispatcherConfig } from './webhook-dispatcher.config.js';

const load = (env: NodeJS.ProcessEnv) => loadWebhookDispatcherConfig({ NODE_ENV: 'development', ...env });

describe('loadWebhookDispatcherConfig: DISPATCHER_CONSUMER_PRIORITY', () => {
  it('takes the configured priority, 0 to 1000', () => {
    expect(load({ DISPATCHER_CONSUMER_PRIORITY: '0' }).consumerPriority).toBe(0);
    expect(load({ DISPATCHER_CONSUMER_PRIORITY: '1000' }).consumerPriority).toBe(1000);
  });

  it('refuses anything else, naming the variable', () => {
    for (const value of ['1001', '-1', 'high', '2.5']) {
      expect(() => load({ DISPATCHER_CONSUMER_PRIORITY: value })).toThrow(ConfigError);
      expect(() => load({ DISPATCHER_CONSUMER_PRIORITY: value })).toThrow(/DISPATCHER_CONSUMER_PRIORITY/);
    }
  });

  it('unset, picks one per process from 1 to 1000, so that processes rarely tie', () => {
    const picked = new Set(Array.from({ length: 50 }, () => load({}).consumerPriority));
    for (const priority of picked) expect(priority >= 1 && priority <= 1000).toBe(true);
    expect(picked.size).toBeGreaterThan(30);
  });
});

describe('loadWebhookDispatcherConfig: WEBHOOK_EGRESS_PROXY', () => {
  it('unset: deliveries go out directly; set: the forward proxy URL as given', () => {
    expect(load({}).egressProxy).toBeUndefined();
    expect(load({ WEBHOOK_EGRESS_PROXY: 'http://egress:s3cret@10.0.0.5:3128' }).egressProxy).toBe(
      'http://egress:s3cret@10.0.0.5:3128',
    );
  });

  it('refuses anything but http://host:port at start, naming the variable and never the credentials', () => {
    for (const value of ['https://egress:s3cret@10.0.0.5:3128', 'http://egress:s3cret@10.0.0.5:3128/hooks', 's3cret']) {
      expect(() => load({ WEBHOOK_EGRESS_PROXY: value })).toThrow(
        /WEBHOOK_EGRESS_PROXY must be a forward proxy URL http:\/\/host:port/,
      );
      expect(() => load({ WEBHOOK_EGRESS_PROXY: value })).not.toThrow(/s3cret/);
    }
  });
});

describe('loadWebhookDispatcherConfig: WEBHOOK_LOG_RETENTION', () => {
  it('keeps deliveries and their log 30 days by default, or as long as set', () => {
    expect(load({}).logRetentionMs).toBe(30 * 86_400_000);
    expect(load({ WEBHOOK_LOG_RETENTION: '14d' }).logRetentionMs).toBe(14 * 86_400_000);
  });

  it('refuses to start with a retention a repeat could outlive (not longer than WEBHOOK_RETRY_DELAYS in all)', () => {
    expect(() => load({ WEBHOOK_LOG_RETENTION: '5d' })).toThrow(/WEBHOOK_LOG_RETENTION must exceed the retry schedule/);
    expect(() => load({ WEBHOOK_LOG_RETENTION: '3d', WEBHOOK_RETRY_DELAYS: '1d,1d,1d' })).toThrow(ConfigError);
    expect(load({ WEBHOOK_LOG_RETENTION: '4d', WEBHOOK_RETRY_DELAYS: '1d,1d,1d' }).logRetentionMs).toBe(4 * 86_400_000);
  });
});

describe('loadWebhookDispatcherConfig: WEBHOOK_DISABLE_AFTER', () => {
  it('disables a webhook failing for 5 days by default, or as long as set, in any unit', () => {
    expect(load({}).disableAfterMs).toBe(5 * 86_400_000);
    expect(load({ WEBHOOK_DISABLE_AFTER: '36h' }).disableAfterMs).toBe(36 * 3_600_000);
    expect(load({ WEBHOOK_DISABLE_AFTER: '2s' }).disableAfterMs).toBe(2_000);
    expect(() => load({ WEBHOOK_DISABLE_AFTER: 'soon' })).toThrow(/WEBHOOK_DISABLE_AFTER/);
  });
});
