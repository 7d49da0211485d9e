import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { freePort, type PostgresReplica, startPostgresReplica, testEnv, waitFor } from '#testing';
import { call, type Client, newMerchantSession, PUBLIC_URL, type RunningApp, startApp } from './support/harness.js';
import { seedDelivery } from './support/log-seed.js';

/**
 * The webhook log with DATABASE_READ_URL, against a real streaming replica of the run's database
 * (libs/testing/src/postgres-replica.ts): its pages are read from the replica (what the dispatcher logged while replay
 * is paused is not in them), everything else from the primary; with the replica stopped, from the primary.
 */
describe('webhook log from the read replica (e2e over HTTP, a streaming replica of the test database)', () => {
  let replica: PostgresReplica;
  let running: RunningApp;
  let client: Client;
  let webhook: { id: string; merchantId: string; url: string };

  beforeAll(async () => {
    replica = await startPostgresReplica(testEnv().databaseUrl);
    running = await startApp({ DATABASE_READ_URL: replica.url, DATABASE_READ_MAX_LAG: '1h' });
    client = await newMerchantSession(running);
    const created = await client.post('/api/webhooks', { name: 'Logged', url: PUBLIC_URL, events: ['transaction'] });
    webhook = { id: created.body.id, merchantId: client.merchantId, url: PUBLIC_URL };
  }, 120_000);
  afterAll(async () => {
    await running?.close();
    await replica?.destroy();
    if (replica) expect(existsSync(replica.dir)).toBe(false);
  });

  /** An attempt logged the way the dispatcher logs it, a moment ago. */
  const logAttempt = async (target = webhook) =>
    (await seedDelivery(running.db, target, [{ status: 200, createdAt: new Date(Date.now() - 1_000) }])).logIds[0];
  const logIds = async (webhookId = webhook.id) => {
    const page = await client.get<{ data: Array<{ id: string }> }>(`/api/webhooks/${webhookId}/logs?limit=100`);
    expect(page.status).toBe(200);
    return page.body.data.map((entry) => entry.id);
  };
  const replicaHealth = async () =>
    (await client.get<{ status: string; details: Record<string, unknown> }>('/health/ready')).body;

  it('reads the log from the replica, and the webhook it belongs to from the primary', async () => {
    const first = await logAttempt();
    await replica.caughtUp();
    expect(await logIds()).toEqual([first]);

    await replica.pauseReplay();
    let second: string;
    try {
      second = await logAttempt();
      expect(await logIds()).toEqual([first]);
      // A webhook created a moment ago is found (its ownership is checked on the primary); its log, on the replica, is
      // still empty although an attempt was logged.
      const created = await client.post('/api/webhooks', { name: 'New', url: PUBLIC_URL, events: ['transaction'] });
      expect(created.status).toBe(201);
      await logAttempt({ ...webhook, id: created.body.id });
      expect(await logIds(created.body.id)).toEqual([]);
      expect((await replicaHealth()).details.databaseReplica).toMatchObject({ status: 'up', readsFrom: 'replica' });
    } finally {
      await replica.resumeReplay();
    }
    await replica.caughtUp();
    expect(await logIds()).toEqual([second, first]);
  });

  it('reads the log from the primary while the replica is stopped, health degraded but ready; then from it again', async () => {
    await replica.stop();
    let third: string;
    try {
      third = await logAttempt();
      expect((await logIds())[0]).toBe(third);
      const health = await client.get<{ status: string; details: Record<string, unknown> }>('/health/ready');
      expect(health.status).toBe(200);
      expect(health.body.status).toBe('degraded');
      expect(health.body.details.databaseReplica).toEqual({
        status: 'degraded',
        state: 'down',
        lagSeconds: null,
        readsFrom: 'primary',
      });
    } finally {
      await replica.start();
    }
    await waitFor(async () => ((await replicaHealth()).details.databaseReplica as { state: string }).state === 'up', {
      what: 'the replica to be up again',
    });
    await replica.caughtUp();
    await replica.pauseReplay();
    try {
      const fourth = await logAttempt();
      const ids = await logIds();
      expect(ids[0]).toBe(third);
      expect(ids).not.toContain(fourth);
    } finally {
      await replica.resumeReplay();
    }
  });

  it('starts, ready and reading the log from the primary, with a replica that is away at start', async () => {
    const away = new URL(replica.url);
    away.port = String(await freePort());
    const alone = await startApp({ DATABASE_READ_URL: away.toString() });
    try {
      const ready = await call<{ details: Record<string, unknown> }>(alone.baseUrl, 'GET', '/health/ready');
      expect(ready.status).toBe(200);
      expect(ready.body.details.databaseReplica).toMatchObject({ status: 'degraded', state: 'down' });
      const session = await newMerchantSession(alone);
      const created = await session.post('/api/webhooks', { name: 'Alone', url: PUBLIC_URL, events: ['transaction'] });
      const logged = await logAttempt({ id: created.body.id, merchantId: session.merchantId, url: PUBLIC_URL });
      const page = await session.get<{ data: Array<{ id: string }> }>(`/api/webhooks/${created.body.id}/logs`);
      expect(page.body.data.map((entry) => entry.id)).toEqual([logged]);
    } finally {
      await alone.close();
    }
  });
});
