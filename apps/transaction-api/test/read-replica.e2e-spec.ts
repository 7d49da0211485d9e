import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { freePort, type PostgresReplica, startPostgresReplica, StdoutCapture, testEnv, waitFor } from '#testing';
import { TransactionApiHarness, transactionBody } from './harness.js';

interface Health {
  status: string;
  details: Record<string, { status: string; state?: string; lagSeconds?: number | null; readsFrom?: string }>;
}

/**
 * DATABASE_READ_URL against a real streaming replica of the run's database: pg_basebackup of the test server,
 * started on a port of its own (libs/testing/src/postgres-replica.ts). Which server answered a merchant read shows
 * when replay is paused on the replica: what the primary committed since is missing from the replica's answers.
 */
describe('read replica (e2e over HTTP, a streaming replica of the test database)', () => {
  let replica: PostgresReplica;
  /** DATABASE_READ_MAX_LAG 1h: its merchant reads stay on the replica while replay is paused. */
  let api: TransactionApiHarness;
  let merchant: { merchantId: string; integrationId: string; apiKey: string };

  beforeAll(async () => {
    replica = await startPostgresReplica(testEnv().databaseUrl);
    const { backupMs, startMs, copiedBytes } = replica.figures;
    console.log(
      `replica of the test server: pg_basebackup ${backupMs} ms (${(copiedBytes / 1e6).toFixed(1)} MB), ` +
        `started and streaming in ${startMs} ms`,
    );
    api = await TransactionApiHarness.start({ DATABASE_READ_URL: replica.url, DATABASE_READ_MAX_LAG: '1h' });
    merchant = await api.merchantWithKey();
  }, 120_000);
  afterAll(async () => {
    await api?.close();
    await replica?.destroy();
    if (replica) expect(existsSync(replica.dir)).toBe(false);
  });

  const create = async (harness = api, extra: Record<string, unknown> = {}) => {
    const body = transactionBody(merchant.merchantId, merchant.integrationId, extra);
    const created = await harness.platform<{ uuid: string; status: string }>('POST', '/internal/transactions', body);
    expect(created.status).toBe(201);
    return created.body;
  };
  const listed = async (harness: TransactionApiHarness, apiKey = merchant.apiKey) => {
    const page = await harness.merchant<{ data: Array<{ uuid: string }> }>(apiKey, '/v1.17/transactions?limit=100');
    expect(page.status).toBe(200);
    return page.body.data.map((transaction) => transaction.uuid);
  };
  const statusOf = async (harness: TransactionApiHarness, uuid: string) => {
    const read = await harness.merchant<{ status: string }>(merchant.apiKey, `/v1.17/transactions/${uuid}`);
    expect(read.status).toBe(200);
    return read.body.status;
  };
  const health = (harness: TransactionApiHarness) => harness.request<Health>('GET', '/health/ready');
  /** The value of one series of /metrics (`name{labels}` as exposed). */
  const metric = async (harness: TransactionApiHarness, series: string) => {
    const { text } = await harness.request('GET', '/metrics');
    const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
    return line === undefined ? undefined : Number(line.slice(series.length + 1));
  };
  const replicaStateOf = async (harness: TransactionApiHarness) =>
    (await health(harness)).body.details.databaseReplica?.state;

  it('serves the merchant read API from the replica; the platform API, idempotency and API keys from the primary', async () => {
    const first = await create();
    await replica.caughtUp();
    expect(await listed(api)).toContain(first.uuid);
    // The app has sessions of its own on the replica (its pool there, with the same settings as on the primary).
    const [{ sessions }] = await replica.query<{ sessions: number }>(
      `SELECT count(*)::int AS sessions FROM pg_stat_activity
        WHERE application_name = 'transaction-api' AND datname = current_database()`,
    );
    expect(sessions).toBeGreaterThan(0);

    await replica.pauseReplay();
    const uuid = randomUUID();
    let second: { uuid: string };
    try {
      second = await create(api, { uuid });
      // The platform API's answers are the primary's: the repeat is recognised, the change answered as made.
      const repeated = await api.platform<{ uuid: string }>(
        'POST',
        '/internal/transactions',
        transactionBody(merchant.merchantId, merchant.integrationId, { uuid }),
      );
      expect(repeated.status).toBe(200);
      const changed = await api.platform<{ status: string }>('POST', `/internal/transactions/${first.uuid}/status`, {
        status: 'confirmed',
      });
      expect(changed).toMatchObject({ status: 200, body: { status: 'confirmed' } });

      // The merchant's list and reads are the replica's: it has replayed neither.
      expect(await listed(api)).toEqual(expect.arrayContaining([first.uuid]));
      expect(await listed(api)).not.toContain(second.uuid);
      expect(await statusOf(api, first.uuid)).toBe('waiting');
      // A single transaction the replica does not have yet is looked up on the primary (a merchant told of it by a
      // webhook or the platform finds it), and counted.
      expect(await statusOf(api, second.uuid)).toBe('waiting');
      expect(await metric(api, 'database_replica_fallbacks_total{reason="miss"}')).toBeGreaterThanOrEqual(1);
      // API keys are looked up on the primary: a key created a moment ago works at once.
      const newcomer = await api.merchantWithKey('New merchant');
      expect(await listed(api, newcomer.apiKey)).toEqual([]);

      const ready = await health(api);
      expect(ready.status).toBe(200);
      expect(ready.body.details.databaseReplica).toMatchObject({ status: 'up', state: 'up', readsFrom: 'replica' });
    } finally {
      await replica.resumeReplay();
    }
    // Replayed, it shows them.
    await replica.caughtUp();
    expect(await listed(api)).toContain(second.uuid);
    expect(await statusOf(api, first.uuid)).toBe('confirmed');
  });

  it('reads from the primary while the replica is further behind than DATABASE_READ_MAX_LAG, health degraded', async () => {
    const strict = await TransactionApiHarness.start({
      DATABASE_READ_URL: replica.url,
      DATABASE_READ_MAX_LAG: '500ms',
    });
    try {
      expect(await replicaStateOf(strict)).toBe('up');
      await replica.pauseReplay();
      let third: { uuid: string };
      try {
        third = await create(strict);
        // Behind by the age of the last transaction it replayed, which grows: soon more than 500 ms.
        const lagging = await waitFor(
          async () => {
            const answer = await health(strict);
            return answer.body.details.databaseReplica?.state === 'lagging' && answer;
          },
          { timeoutMs: 10_000, intervalMs: 100, what: 'the replica to be reported lagging' },
        );
        expect(lagging.status).toBe(200);
        expect(lagging.body.status).toBe('degraded');
        expect(lagging.body.details.databaseReplica).toMatchObject({ status: 'degraded', readsFrom: 'primary' });
        expect(lagging.body.details.databaseReplica.lagSeconds).toBeGreaterThan(0.5);
        expect(await metric(strict, 'database_replica_lag_seconds')).toBeGreaterThan(0.5);

        expect(await listed(strict)).toContain(third.uuid);
        expect(await metric(strict, 'database_replica_fallbacks_total{reason="lagging"}')).toBeGreaterThanOrEqual(1);
        // The instance that tolerates an hour still reads the replica, which has not replayed it.
        expect(await listed(api)).not.toContain(third.uuid);
      } finally {
        await replica.resumeReplay();
      }
      await replica.caughtUp();
      await waitFor(async () => (await replicaStateOf(strict)) === 'up', { what: 'the replica to be up again' });
      expect(await listed(api)).toContain(third.uuid);
    } finally {
      await strict.close();
    }
  });

  it('answers merchant reads from the primary while the replica is down, health degraded but ready; then uses it again', async () => {
    const logs = new StdoutCapture();
    let fourth: { uuid: string };
    try {
      await replica.stop();
      fourth = await create();
      for (let i = 0; i < 10; i += 1) {
        expect(await listed(api)).toContain(fourth.uuid);
        expect(await statusOf(api, fourth.uuid)).toBe('waiting');
      }
      const ready = await health(api);
      expect(ready.status).toBe(200);
      expect(ready.body.status).toBe('degraded');
      expect(ready.body.details.database.status).toBe('up');
      expect(ready.body.details.databaseReplica).toEqual({
        status: 'degraded',
        state: 'down',
        lagSeconds: null,
        readsFrom: 'primary',
      });
      const fellBack = await Promise.all(
        ['error', 'down'].map((reason) => metric(api, `database_replica_fallbacks_total{reason="${reason}"}`)),
      );
      expect(fellBack[0]! + fellBack[1]!).toBeGreaterThanOrEqual(20);
      expect(await metric(api, 'database_replica_lag_seconds')).toBeNaN();
    } finally {
      logs.restore();
      await replica.start();
    }
    // One warning for the outage and its twenty fallbacks (warnings: at most one a minute).
    expect(logs.lines().filter((line) => /read replica (down|lagging)/.test(line))).toHaveLength(1);

    await waitFor(async () => (await replicaStateOf(api)) === 'up', { what: 'the replica to be up again' });
    await create();
    await replica.caughtUp();
    await replica.pauseReplay();
    try {
      const fifth = await create();
      const list = await listed(api);
      expect(list).toContain(fourth.uuid);
      expect(list).not.toContain(fifth.uuid);
    } finally {
      await replica.resumeReplay();
    }
  });

  it('starts, ready and answering from the primary, with a replica that is away at start', async () => {
    const away = new URL(replica.url);
    away.port = String(await freePort());
    const alone = await TransactionApiHarness.start({ DATABASE_READ_URL: away.toString() });
    try {
      const ready = await health(alone);
      expect(ready.status).toBe(200);
      expect(ready.body.details.databaseReplica).toMatchObject({ status: 'degraded', state: 'down' });
      const created = await create(alone);
      expect(await listed(alone)).toContain(created.uuid);
    } finally {
      await alone.close();
    }
  });
});
