// The apps on a delivery's path, as the API-driven scenarios of bench:dispatch start them: one transaction-api process
// on :3901 and `processes` dispatchers on :3902, :3912, …, each freshly started; `ready()` waits for all, `stop()`
// stops them; `cpuSince(cpuMark())` gives the CPU seconds each process group used since the mark (the benchmark's own
// process as `loadGenerator`).
import { cpuSecondsBetween, cpuSnapshot, groupBy } from '../lib/cpu.js';
import { PLATFORM_TOKEN } from '../lib/platform-api.js';

export function startPipeline(ctx, processes) {
  const { infra, startApp, waitReady, stopChild, dispatcherEnv } = ctx;
  const api = 'http://127.0.0.1:3901';
  const transactionApi = startApp('transaction-api', {
    DATABASE_URL: infra.databaseUrl,
    AMQP_URL: infra.amqpUrl,
    PLATFORM_TOKEN,
    TRANSACTION_API_PORT: '3901',
    ...ctx.tracingEnv,
  });
  const dispatcherPorts = Array.from({ length: processes }, (_, i) => 3902 + 10 * i);
  const dispatchers = dispatcherPorts.map((port) =>
    startApp('webhook-dispatcher', { ...dispatcherEnv, WEBHOOK_DISPATCHER_PORT: String(port) }),
  );
  return {
    api,
    transactionApi,
    dispatchers,
    dispatcherPorts,
    ready: async () => {
      await waitReady(`${api}/health/ready`);
      for (const port of dispatcherPorts) await waitReady(`http://127.0.0.1:${port}/health/ready`);
    },
    cpuMark: () => ({ processes: cpuSnapshot(() => undefined), loadGenerator: process.cpuUsage() }),
    cpuSince: async (mark) => {
      const named = new Map([
        ...ctx.ownPids,
        [transactionApi.pid, 'transactionApi'],
        ...dispatchers.map((d) => [d.pid, 'dispatcher']),
      ]);
      const cpu = cpuSecondsBetween(
        mark.processes,
        cpuSnapshot(groupBy(named, infra.brokerPids(), await infra.postgresPids())),
      );
      const own = process.cpuUsage(mark.loadGenerator);
      cpu.loadGenerator = (own.user + own.system) / 1e6;
      return cpu;
    },
    stop: async () => {
      await Promise.all(dispatchers.map(stopChild));
      await stopChild(transactionApi);
    },
  };
}
