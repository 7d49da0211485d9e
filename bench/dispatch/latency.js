// Latency scenario of bench:dispatch: status changes through transaction-api's platform API at a steady rate;
// latency = receiver arrival − the API's answer, for every (status change, healthy webhook) pair.
import { cardPayment, platformApi } from '../lib/platform-api.js';
import { startPipeline } from './pipeline.js';

export async function latencyScenario(ctx) {
  const {
    ask,
    base,
    createWebhook,
    printMetrics,
    percentile,
    round,
    dispatchers: processes,
    RATE,
    SECONDS,
    WARMUP_SECONDS,
  } = ctx;
  const { api, dispatcherPorts, ready, stop, cpuMark, cpuSince } = startPipeline(ctx, processes);
  const platform = platformApi(api, { connections: 64 });
  const { post } = platform;
  try {
    await ready();
    const merchant = await post('/internal/merchants', { name: 'Latency merchant' });
    const integration = await post(`/internal/merchants/${merchant.id}/integrations`, { name: 'shop' });

    // Transactions to move during the measurement, created before any webhook exists.
    // The first WARMUP seconds of load run at the same rate but are reported apart (`warmUp`): they show a
    // freshly started dispatcher and API (cold JIT, new connections), not the steady state.
    const warmUp = RATE * WARMUP_SECONDS;
    const total = warmUp + RATE * SECONDS;
    const uuids = [];
    for (let i = 0; i < total; i += 50) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(50, total - i) }, (_, j) =>
          post('/internal/transactions', cardPayment(merchant.id, integration.id, `lat-${i + j}`, 'waiting')),
        ),
      );
      uuids.push(...batch.map((t) => t.uuid));
    }
    const healthy = ctx.webhooks;
    for (let i = 0; i < healthy; i += 1) await createWebhook(merchant.id, `${base}/lat/${i}`);
    for (let i = 0; i < ctx.blackHoles; i += 1) await createWebhook(merchant.id, `${base}/black-hole/${i}`);
    // The lifecycle scenario's others: failing (500, with repeats), rate-limited, disabled.
    for (let i = 0; i < (ctx.failing ?? 0); i += 1) {
      await createWebhook(merchant.id, `${base}/fail/${i}`, { retryOnError: true });
    }
    for (let i = 0; i < (ctx.rateLimited ?? 0); i += 1) {
      await createWebhook(merchant.id, `${base}/limited/${i}`, { maxPerSecond: 5 });
    }
    for (let i = 0; i < (ctx.disabled ?? 0); i += 1) {
      await createWebhook(merchant.id, `${base}/disabled/${i}`, { enabled: false });
    }
    // Let the creation events drain (no webhook matched them), and let the dispatcher see the new webhooks.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    await ask('arrivals');

    const answered = new Map();
    const wal = ctx.watchBrokerWal();
    let cpuMarked;
    let cpuFrom;
    const started = performance.now();
    const inFlight = [];
    for (let i = 0; i < total; i += 1) {
      if (i === warmUp) {
        cpuMarked = cpuMark();
        cpuFrom = performance.now();
      }
      const due = started + (i * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const uuid = uuids[i];
      inFlight.push(
        post(`/internal/transactions/${uuid}/status`, { status: 'confirmed' }).then(() =>
          answered.set(uuid, performance.timeOrigin + performance.now()),
        ),
      );
    }
    await Promise.all(inFlight);
    // CPU of the measured minute, by process group, in cores (CPU seconds per second): what the load costs.
    const cpu = await cpuSince(cpuMarked);
    const elapsed = (performance.now() - cpuFrom) / 1000;
    const coresBusy = Object.fromEntries(Object.entries(cpu).map(([group, s]) => [group, round(s / elapsed, 2)]));
    // Every dispatcher's metrics: with consumer priorities one of them may have done all the work.
    await printMetrics(dispatcherPorts, [
      'webhook_deliveries_total',
      'webhook_delivery_decisions',
      'webhook_deliveries_in_flight',
      'webhook_queue_messages',
      'webhook_delivery_duration_seconds_bucket',
      'webhook_event_to_delivery_seconds_bucket',
    ]);
    const achievedRate = round(total / ((performance.now() - started) / 1000), 0);
    const measuredFrom = new Set(uuids.slice(warmUp));
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    const walRollovers = wal.stop();
    const { arrivals } = await ask('arrivals');
    const latencies = [];
    const warmUpLatencies = [];
    const windows = []; // latencies by 5 s window of the API's answer, to show when the slow ones happened
    const firstAnswer = Math.min(...[...measuredFrom].map((uuid) => answered.get(uuid)));
    const seen = new Set();
    const arrivedAt = new Map();
    for (const [uuid, at, url] of arrivals) {
      if (!url.startsWith('/lat/') || !answered.has(uuid)) continue;
      const key = `${uuid} ${url}`;
      if (seen.has(key)) continue;
      seen.add(key);
      arrivedAt.set(key, at);
      const latency = at - answered.get(uuid);
      if (!measuredFrom.has(uuid)) {
        warmUpLatencies.push(latency);
        continue;
      }
      latencies.push(latency);
      const w = Math.floor((answered.get(uuid) - firstAnswer) / 5_000);
      (windows[w] ??= []).push(latency);
    }
    latencies.sort((a, b) => a - b);
    warmUpLatencies.sort((a, b) => a - b);
    const p99By5s = windows.map((w) =>
      round(
        percentile(
          w.sort((a, b) => a - b),
          99,
        ),
      ),
    );
    const stages = await stageTimings(ctx.db, arrivedAt, measuredFrom, percentile, round);
    return {
      dispatcherProcesses: processes,
      statusChangesPerSecond: achievedRate,
      seconds: SECONDS,
      healthyWebhooks: healthy,
      neverAnsweringWebhooks: ctx.blackHoles,
      ...(ctx.failing !== undefined && {
        failingWebhooks: ctx.failing,
        rateLimitedWebhooks: ctx.rateLimited,
        disabledWebhooks: ctx.disabled,
      }),
      expectedDeliveries: (total - warmUp) * healthy,
      measuredDeliveries: latencies.length,
      p50ms: round(percentile(latencies, 50)),
      p99ms: round(percentile(latencies, 99)),
      maxMs: round(latencies[latencies.length - 1] ?? NaN),
      p99By5s,
      stages,
      coresBusy,
      // When RabbitMQ's quorum-queue WAL rolled over, in seconds from the first measured answer (negative: warm-up).
      brokerWal: {
        maxBytes: wal.maxBytes,
        rolloversAtSeconds: walRollovers.map((at) => round((performance.timeOrigin + at - firstAnswer) / 1000)),
      },
      warmUp: {
        seconds: WARMUP_SECONDS,
        deliveries: warmUpLatencies.length,
        p50ms: round(percentile(warmUpLatencies, 50)),
        p99ms: round(percentile(warmUpLatencies, 99)),
      },
    };
  } finally {
    await platform.close();
    await stop();
  }
}

/**
 * Where the time goes, from the database's timestamps and the receiver's: commit → relay confirmed (outbox sent_at)
 * → deliveries recorded by the fan-out → attempt started → arrival. p50/p99 of each stage, in ms, over the measured
 * deliveries (the stages' p99s do not add up to the end-to-end p99: the slow ones are not the same deliveries).
 */
async function stageTimings(db, arrivedAt, measuredFrom, percentile, round) {
  const { rows } = await db.query(
    `SELECT o.subject_id AS uuid, d.url,
            extract(epoch FROM o.created_at) * 1000 AS committed, extract(epoch FROM o.sent_at) * 1000 AS sent,
            extract(epoch FROM d.created_at) * 1000 AS recorded, extract(epoch FROM l.created_at) * 1000 AS attempted
       FROM outbox_event o
       JOIN webhook_delivery d ON d.event_id = o.id
       JOIN webhook_log l ON l.delivery_id = d.id AND l.attempt = 1
      WHERE o.type = 'transaction.status_changed'`,
  );
  const spans = { relay: [], fanOut: [], queued: [], post: [] };
  for (const row of rows) {
    const arrived = arrivedAt.get(`${row.uuid} ${new URL(row.url).pathname}`);
    if (arrived === undefined || !measuredFrom.has(row.uuid)) continue;
    spans.relay.push(row.sent - row.committed);
    spans.fanOut.push(row.recorded - row.sent);
    spans.queued.push(row.attempted - row.recorded);
    spans.post.push(arrived - row.attempted);
  }
  return Object.fromEntries(
    Object.entries(spans).map(([stage, values]) => {
      values.sort((a, b) => a - b);
      return [stage, { p50: round(percentile(values, 50)), p99: round(percentile(values, 99)) }];
    }),
  );
}
