import { describe, expect, it } from '@jest/globals';
import { DatabaseRetry } from './database-retry.js';

const pgError = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('DatabaseRetry', () => {
  it('repeats a step that fails transiently until it succeeds', async () => {
    const retry = new DatabaseRetry();
    let calls = 0;
    const result = await retry.run(async () => {
      calls += 1;
      if (calls < 3) throw pgError('57P03');
      return 'stored';
    });
    expect([result, calls]).toEqual(['stored', 3]);
  });

  it('tells whether a step had to wait out an outage', async () => {
    const retry = new DatabaseRetry();
    expect(await retry.runNoting(async () => 'at once')).toEqual({ result: 'at once', waited: false });
    let calls = 0;
    const afterOutage = await retry.runNoting(async () => {
      calls += 1;
      if (calls === 1) throw new Error('Connection terminated unexpectedly');
      return 'later';
    });
    expect(afterOutage).toEqual({ result: 'later', waited: true });
  });

  it('throws any other failure at once', async () => {
    const retry = new DatabaseRetry();
    let calls = 0;
    const failing = retry.run(async () => {
      calls += 1;
      throw pgError('23505', 'duplicate key');
    });
    await expect(failing).rejects.toThrow('duplicate key');
    expect(calls).toBe(1);
  });

  it('makes waiting steps give up when stopped (shutdown), with their last error, and repeats nothing after', async () => {
    const retry = new DatabaseRetry();
    let calls = 0;
    const waiting = retry.run(async () => {
      calls += 1;
      throw pgError('08006', 'connection failure');
    });
    await new Promise((resolve) => setTimeout(resolve, 350)); // a few repeats (0.1 s, 0.2 s, …)
    const before = calls;
    retry.stop();
    await expect(waiting).rejects.toThrow('connection failure');
    expect(calls).toBe(before);
    await expect(retry.run(async () => Promise.reject(pgError('08006', 'still down')))).rejects.toThrow('still down');
  });
});
