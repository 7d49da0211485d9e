import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { MAINTENANCE_EVERY_MS, PartitionMaintenanceJob } from './partition-maintenance.job.js';
import type { PartitionMaintenance } from './partition-maintenance.service.js';

/** A maintenance whose runs the test ends by hand: each call to `run` waits until `finish(k)` or `fail(k)`. */
function controlledMaintenance() {
  const runs: Array<{ resolve: () => void; reject: (error: Error) => void }> = [];
  const maintenance = {
    run: () => new Promise<void>((resolve, reject) => void runs.push({ resolve, reject })),
  } as unknown as PartitionMaintenance;
  return { maintenance, runs };
}

const settled = () =>
  new Promise((resolve) => jest.requireActual<typeof import('node:timers')>('node:timers').setImmediate(resolve));

describe('PartitionMaintenanceJob', () => {
  beforeEach(() => {
    jest.useFakeTimers({ doNotFake: ['setImmediate'] });
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  it('runs once before the process consumes anything, then every hour', async () => {
    const { maintenance, runs } = controlledMaintenance();
    const job = new PartitionMaintenanceJob(maintenance);
    let started = false;
    const init = job.onModuleInit().then(() => (started = true));
    await settled();
    expect(runs).toHaveLength(1);
    expect(started).toBe(false); // start-up waits for today's partitions

    runs[0].resolve();
    await init;
    jest.advanceTimersByTime(MAINTENANCE_EVERY_MS - 1);
    expect(runs).toHaveLength(1);
    jest.advanceTimersByTime(1);
    expect(runs).toHaveLength(2);
    runs[1].resolve();
    await job.beforeApplicationShutdown();
  });

  it('a failed run does not stop the process: start-up goes on and the next hour tries again', async () => {
    const { maintenance, runs } = controlledMaintenance();
    const job = new PartitionMaintenanceJob(maintenance);
    const init = job.onModuleInit();
    await settled();
    runs[0].reject(new Error('database away'));
    await expect(init).resolves.toBeUndefined();

    jest.advanceTimersByTime(MAINTENANCE_EVERY_MS);
    expect(runs).toHaveLength(2);
    runs[1].resolve();
    await job.beforeApplicationShutdown();
  });

  it('does not overlap a run still going (a long drop), and shutdown waits for it, then stops the timer', async () => {
    const { maintenance, runs } = controlledMaintenance();
    const job = new PartitionMaintenanceJob(maintenance);
    const init = job.onModuleInit();
    await settled();
    runs[0].resolve();
    await init;

    jest.advanceTimersByTime(MAINTENANCE_EVERY_MS); // second run starts, and lasts
    jest.advanceTimersByTime(MAINTENANCE_EVERY_MS * 2); // two more hours: no run beside it
    expect(runs).toHaveLength(2);

    let stopped = false;
    const stopping = job.beforeApplicationShutdown().then(() => (stopped = true));
    await settled();
    expect(stopped).toBe(false);
    runs[1].resolve();
    await stopping;

    jest.advanceTimersByTime(MAINTENANCE_EVERY_MS * 3);
    expect(runs).toHaveLength(2);
  });
});
