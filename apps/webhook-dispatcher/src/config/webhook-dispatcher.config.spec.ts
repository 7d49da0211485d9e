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
