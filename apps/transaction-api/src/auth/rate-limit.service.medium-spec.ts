import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { AmqpClient } from '#messaging';
import { appTestEnv, testEnv, waitFor } from '#testing';
import { loadTransactionApiConfig } from '../config/transaction-api.config.js';
import { RateLimiter } from './rate-limit.service.js';

const LIMIT = 10;

/**
 * The read API's rate limit held for the sum over processes: two limiters, each with its own connection to the real
 * broker, stand for two transaction-api processes telling each other their counts on `transaction-api.rate`.
 */
describe('RateLimiter (real RabbitMQ, two processes)', () => {
  const config = loadTransactionApiConfig(appTestEnv({ API_RATE_LIMIT: String(LIMIT) }));
  const processes: Array<{ amqp: AmqpClient; limiter: RateLimiter }> = [];

  beforeAll(async () => {
    for (let i = 0; i < 2; i += 1) {
      const amqp = new AmqpClient({ url: testEnv().amqpUrl, name: `rate-spec-${i}`, topology: { retryDelaysMs: [] } });
      await amqp.waitForConnect();
      const limiter = new RateLimiter(config, amqp);
      await limiter.onApplicationBootstrap();
      processes.push({ amqp, limiter });
    }
  });
  afterAll(async () => {
    for (const { amqp, limiter } of processes) {
      limiter.onApplicationShutdown();
      await amqp.close();
    }
  });

  it(`admits ${LIMIT} requests a second of one API key in a process, then refuses; another key is not held by it`, () => {
    const [{ limiter }] = processes;
    const key = randomUUID();
    const answers = Array.from({ length: LIMIT + 3 }, () => limiter.admitKey(key));
    expect(answers.filter(Boolean)).toHaveLength(LIMIT);
    expect(answers.slice(LIMIT)).toEqual([false, false, false]);
    expect(limiter.admitKey(randomUUID())).toBe(true);
  });

  it("counts another process's requests of the key: the sum over both is held to the limit", async () => {
    const [a, b] = processes.map((p) => p.limiter);
    const key = randomUUID();
    for (let i = 0; i < LIMIT; i += 1) expect(a.admitKey(key)).toBe(true);
    // Counts go out every 100 ms: a few hundred ms later the other process refuses the key at its first request.
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(b.admitKey(key)).toBe(false);
    // A key the first process did not use is still admitted there.
    expect(b.admitKey(randomUUID())).toBe(true);
  });

  it('limits wrong keys per client address, in every process', async () => {
    const [a, b] = processes.map((p) => p.limiter);
    const address = `198.51.100.${Math.floor(Math.random() * 250) + 1}`;
    expect(a.mayTry(address)).toBe(true);
    for (let i = 0; i < LIMIT; i += 1) a.countWrongKey(address);
    expect(a.countWrongKey(address)).toBe(false);
    expect(a.mayTry(address)).toBe(false);
    await waitFor(() => !b.mayTry(address), { timeoutMs: 2_000, intervalMs: 20, what: 'the other process' });
    expect(a.mayTry('198.51.100.254')).toBe(true);
  });
});
