// End-to-end scenario of bench:dispatch (issue #32): PAYMENTS payments recorded through transaction-api's platform
// API, each delivered to WEBHOOKS webhooks, with one transaction-api process and `processes` dispatcher processes
// (as `npm start` runs them: one process per app; webhook-config is not on this path and is not started). The rate
// is the deliveries from the first API call to the last arrival; the caller divides it by the bare loop's.
import { cardPayment, platformApi } from '../lib/platform-api.js';
import { startPipeline } from './pipeline.js';

/** Platform API calls in flight: the load generator records the payments as fast as the API answers. */
const API_CONNECTIONS = 64;

export async function endToEndScenario(ctx, processes) {
  const { ask, base, createWebhook, printMetrics, round } = ctx;
  const { PAYMENTS, WEBHOOKS } = ctx;
  const { api, dispatcherPorts, ready, stop, cpuMark, cpuSince } = startPipeline(ctx, processes);
  const platform = platformApi(api, { connections: API_CONNECTIONS });
  const { post } = platform;
  try {
    await ready();
    const merchant = await post('/internal/merchants', { name: 'End-to-end merchant' });
    const integration = await post(`/internal/merchants/${merchant.id}/integrations`, { name: 'shop' });
    const hooks = [];
    for (let i = 0; i < WEBHOOKS; i += 1) hooks.push(await createWebhook(merchant.id, `${base}/e2e/${i}`));
    // Let the dispatchers see the new webhooks, then count from zero.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    await ask('arrivals');
    ctx.receiver.send('reset');

    const total = PAYMENTS * WEBHOOKS;
    const cpuFrom = cpuMark();
    const started = performance.now();
    let next = 0;
    const recording = Promise.all(
      Array.from({ length: API_CONNECTIONS }, async () => {
        for (;;) {
          const i = next++;
          if (i >= PAYMENTS) return;
          await post('/internal/transactions', cardPayment(merchant.id, integration.id, `e2e-${i}`));
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
    const cpu = await cpuSince(cpuFrom);
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
    await platform.close();
    await stop();
  }
}
