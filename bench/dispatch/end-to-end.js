// End-to-end scenario of bench:dispatch (issue #32): PAYMENTS payments recorded through transaction-api's platform
// API, each delivered to WEBHOOKS webhooks, with one transaction-api process and `processes` dispatcher processes
// (as `npm start` runs them: one process per app; webhook-config is not on this path and is not started). The rate
// is the deliveries from the first API call to the last arrival; the caller divides it by the bare loop's.
import { Pool } from 'undici';
import { cpuSecondsBetween, cpuSnapshot, groupBy } from '../lib/cpu.js';

const TOKEN = 'bench-platform-token-0123456789';
/** Platform API calls in flight: the load generator records the payments as fast as the API answers. */
const API_CONNECTIONS = 64;

export async function endToEndScenario(ctx, processes) {
  const { infra, ask, base, createWebhook, startApp, waitReady, stopChild, printMetrics, round, dispatcherEnv } = ctx;
  const { PAYMENTS, WEBHOOKS } = ctx;
  const api = 'http://127.0.0.1:3901';
  const transactionApi = startApp('transaction-api', {
    DATABASE_URL: infra.databaseUrl,
    AMQP_URL: infra.amqpUrl,
    PLATFORM_TOKEN: TOKEN,
    TRANSACTION_API_PORT: '3901',
    ...ctx.tracingEnv,
  });
  const dispatcherPorts = Array.from({ length: processes }, (_, i) => 3902 + 10 * i);
  const dispatchers = dispatcherPorts.map((port) =>
    startApp('webhook-dispatcher', { ...dispatcherEnv, WEBHOOK_DISPATCHER_PORT: String(port) }),
  );
  const apiPool = new Pool(api, { connections: API_CONNECTIONS });
  try {
    await waitReady(`${api}/health/ready`);
    for (const port of dispatcherPorts) await waitReady(`http://127.0.0.1:${port}/health/ready`);
    const post = async (path, body) => {
      const response = await apiPool.request({
        path,
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      if (response.statusCode >= 300) throw new Error(`${path}: ${response.statusCode} ${await response.body.text()}`);
      return response.body.json();
    };
    const merchant = await post('/internal/merchants', { name: 'End-to-end merchant' });
    const integration = await post(`/internal/merchants/${merchant.id}/integrations`, { name: 'shop' });
    const hooks = [];
    for (let i = 0; i < WEBHOOKS; i += 1) hooks.push(await createWebhook(merchant.id, `${base}/e2e/${i}`));
    // Let the dispatchers see the new webhooks, then count from zero.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    await ask('arrivals');
    ctx.receiver.send('reset');

    const total = PAYMENTS * WEBHOOKS;
    const cpuBefore = cpuSnapshot(() => undefined);
    const benchCpuBefore = process.cpuUsage();
    const started = performance.now();
    let next = 0;
    const recording = Promise.all(
      Array.from({ length: API_CONNECTIONS }, async () => {
        for (;;) {
          const i = next++;
          if (i >= PAYMENTS) return;
          await post('/internal/transactions', {
            merchantId: merchant.id,
            integrationId: integration.id,
            referenceId: `e2e-${i}`,
            status: 'confirmed',
            psp: 'Payrexx Direct',
            type: 'e-commerce',
            paymentMethod: 'visa',
            amount: 1990,
            currency: 'CHF',
            authentication: { eci: '05', source: '3ds', version: '2.2.0', flow: 'challenge' },
          });
        }
      }),
    );
    let recordedAt;
    void recording.then(() => (recordedAt = performance.now()));
    const deadline = Date.now() + 600_000;
    for (;;) {
      const { count } = await ask('count');
      if (count >= total) break;
      if (Date.now() > deadline) throw new Error(`only ${count} of ${total} deliveries arrived within 10 minutes`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await recording;
    const seconds = (performance.now() - started) / 1000;
    const named = new Map([
      ...ctx.ownPids,
      [transactionApi.pid, 'transactionApi'],
      ...dispatchers.map((d) => [d.pid, 'dispatcher']),
    ]);
    const cpu = cpuSecondsBetween(
      cpuBefore,
      cpuSnapshot(groupBy(named, infra.brokerPids(), await infra.postgresPids())),
    );
    const benchCpu = process.cpuUsage(benchCpuBefore);
    cpu.loadGenerator = (benchCpu.user + benchCpu.system) / 1e6;
    await printMetrics(dispatcherPorts, ['webhook_deliveries_total', 'webhook_delivery_decisions']);
    await ask('arrivals');
    return {
      hooks,
      dispatcherProcesses: processes,
      payments: PAYMENTS,
      webhooks: WEBHOOKS,
      deliveries: total,
      seconds: round(seconds, 2),
      deliveriesPerSecond: round(total / seconds, 0),
      apiCallsDoneAfterSeconds: round((recordedAt - started) / 1000, 2),
      cpuSecondsPer10kDeliveries: Object.fromEntries(
        Object.entries(cpu).map(([group, s]) => [group, round((s * 10_000) / total, 2)]),
      ),
    };
  } finally {
    await apiPool.close();
    await Promise.all(dispatchers.map(stopChild));
    await stopChild(transactionApi);
  }
}
