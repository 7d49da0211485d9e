import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { Registry } from 'prom-client';
import { ReadReplica } from './read-replica.js';

/** A replica connection whose lag answer (or failure) the test sets; `reads` counts what ran on it. */
class FakeReplica {
  lag: number | null | Error = 0;
  opened = 0;
  closed = 0;
  reads = 0;
}

const refused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5433'), { code: 'ECONNREFUSED' });

describe('ReadReplica', () => {
  let fake: FakeReplica;
  let registry: Registry;
  let replica: ReadReplica<FakeReplica>;
  let warn: ReturnType<typeof jest.spyOn>;
  let log: ReturnType<typeof jest.spyOn>;

  beforeEach(() => {
    warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    log = jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    fake = new FakeReplica();
    registry = new Registry();
    replica = new ReadReplica<FakeReplica>({
      registry,
      maxLagMs: 2_000,
      open: async () => {
        fake.opened += 1;
        return fake;
      },
      rows: async (connection) => {
        if (connection.lag instanceof Error) throw connection.lag;
        return [{ lag: connection.lag }];
      },
      close: async (connection) => {
        connection.closed += 1;
      },
    });
  });
  afterEach(() => {
    warn.mockRestore();
    log.mockRestore();
  });

  const onReplica = async (connection: FakeReplica) => {
    connection.reads += 1;
    return 'replica';
  };
  const onPrimary = async () => 'primary';
  const fallbacks = async () =>
    Object.fromEntries(
      (await registry.getSingleMetric('database_replica_fallbacks_total')!.get()).values.map((value) => [
        value.labels.reason,
        value.value,
      ]),
    );

  it('without DATABASE_READ_URL reads on the primary, opens nothing and registers no metric', async () => {
    const none = new ReadReplica<FakeReplica>();
    expect(none.configured).toBe(false);
    expect(await none.read(onReplica, onPrimary)).toBe('primary');
    expect(await none.check()).toEqual({ state: 'up', lagSeconds: null });
    expect(fake.opened).toBe(0);
    await none.onApplicationShutdown();
  });

  it('reads on the replica while it is up and within the lag limit, and on the primary while it lags', async () => {
    expect(await replica.check()).toEqual({ state: 'up', lagSeconds: 0 });
    expect(await replica.read(onReplica, onPrimary)).toBe('replica');
    fake.lag = 2.5;
    expect(await replica.check()).toEqual({ state: 'lagging', lagSeconds: 2.5 });
    expect(await replica.read(onReplica, onPrimary)).toBe('primary');
    // Behind with no transaction replayed since it started: it cannot tell how far, so it counts as lagging.
    fake.lag = null;
    expect(await replica.check()).toEqual({ state: 'lagging', lagSeconds: null });
    fake.lag = 1.5;
    expect(await replica.check()).toEqual({ state: 'up', lagSeconds: 1.5 });
    expect(await replica.read(onReplica, onPrimary)).toBe('replica');
    expect(fake.reads).toBe(2);
    expect(fake.opened).toBe(1);
    expect(await fallbacks()).toEqual({ down: 0, lagging: 1, error: 0, miss: 0 });
    expect((await registry.getSingleMetric('database_replica_lag_seconds')!.get()).values[0].value).toBe(1.5);
  });

  it('repeats a read that fails on the replica with a transient error on the primary, and marks the replica down', async () => {
    let failing = true;
    const flaky = async (connection: FakeReplica) => {
      if (failing) throw refused();
      return onReplica(connection);
    };
    expect((await replica.check()).state).toBe('up');
    expect(await replica.read(flaky, onPrimary)).toBe('primary');
    expect(replica['status']).toEqual({ state: 'down', lagSeconds: null });
    // While down, reads go straight to the primary until a probe answers.
    failing = false;
    expect(await replica.read(flaky, onPrimary)).toBe('primary');
    expect(await fallbacks()).toMatchObject({ error: 1, down: 1 });
    expect(await replica.check()).toEqual({ state: 'up', lagSeconds: 0 });
    expect(await replica.read(flaky, onPrimary)).toBe('replica');
    expect(log.mock.calls).toEqual([['the read replica answers again: reads use it again']]);
  });

  it("passes on an error that is not the replica's (a bug, a refused privilege): the primary would fail the same", async () => {
    const denied = Object.assign(new Error('permission denied for table transaction'), { code: '42501' });
    await expect(replica.read(() => Promise.reject(denied), onPrimary)).rejects.toBe(denied);
    expect(replica['status'].state).toBe('up');
  });

  it('reads on the primary what the replica did not have yet, when the caller says so', async () => {
    expect(
      await replica.read(
        async () => [],
        async () => ['row'],
        (rows) => rows.length === 0,
      ),
    ).toEqual(['row']);
    expect(
      await replica.read(
        async () => ['row'],
        async () => [],
        (rows) => rows.length === 0,
      ),
    ).toEqual(['row']);
    expect(await fallbacks()).toMatchObject({ miss: 1 });
  });

  it('marks the replica down when a probe fails or gets no answer in 2 s (the lag gauge NaN); health waits less', async () => {
    fake.lag = refused();
    expect(await replica.check()).toEqual({ state: 'down', lagSeconds: null });
    expect((await registry.getSingleMetric('database_replica_lag_seconds')!.get()).values[0].value).toBeNaN();
    fake.lag = 0;
    const hanging = new ReadReplica<FakeReplica>({
      registry: new Registry(),
      maxLagMs: 2_000,
      open: async () => fake,
      rows: () => new Promise(() => undefined),
      close: async () => undefined,
    });
    const started = Date.now();
    // /health/ready waits a moment only, and reports what is known so far; the probe goes on.
    expect(await hanging.check(100)).toEqual({ state: 'up', lagSeconds: null });
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(await hanging.check()).toEqual({ state: 'down', lagSeconds: null });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_900);
  });

  it('opens the connection again after it could not be opened, and closes it at shutdown', async () => {
    let attempts = 0;
    const late = new ReadReplica<FakeReplica>({
      registry: new Registry(),
      maxLagMs: 2_000,
      open: async () => {
        attempts += 1;
        if (attempts === 1) throw refused();
        return fake;
      },
      rows: async () => [{ lag: 0 }],
      close: async (connection) => {
        connection.closed += 1;
      },
    });
    expect((await late.check()).state).toBe('down');
    expect((await late.check()).state).toBe('up');
    await late.onApplicationShutdown();
    expect(fake.closed).toBe(1);
    expect(attempts).toBe(2);
  });

  it('logs a warning at most once a minute, however often the replica fails, and a recovery only after one', async () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    try {
      const flap = async () => {
        fake.lag = refused();
        expect((await replica.check()).state).toBe('down');
        expect(await replica.read(() => Promise.reject(refused()), onPrimary)).toBe('primary');
        fake.lag = 0;
        expect((await replica.check()).state).toBe('up');
        expect(await replica.read(() => Promise.reject(refused()), onPrimary)).toBe('primary');
      };
      for (let i = 0; i < 5; i += 1) await flap();
      expect(warn).toHaveBeenCalledTimes(1);
      expect(warn.mock.calls[0][0]).toBe(
        'read replica down (connect ECONNREFUSED 127.0.0.1:5433): reads go to the primary until it is back',
      );
      expect(log).toHaveBeenCalledTimes(1);
      // A minute later the next one is logged, with the number left out; then the recovery.
      jest.advanceTimersByTime(61_000);
      await flap();
      expect(warn).toHaveBeenCalledTimes(2);
      expect(warn.mock.calls[1][0]).toMatch(
        /^read replica down \(a read failed on it: connect ECONNREFUSED .*\(5 more such warning\(s\) in the last minute not logged\)$/,
      );
      expect(log).toHaveBeenCalledTimes(1);
      expect((await replica.check()).state).toBe('up');
      expect(log).toHaveBeenCalledTimes(2);
      expect(await fallbacks()).toMatchObject({ down: 6, error: 6 });
    } finally {
      jest.useRealTimers();
    }
  });
});
