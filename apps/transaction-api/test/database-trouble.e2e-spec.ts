import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { testEnv } from '#testing';
import pg from 'pg';
import { eventsOf, sql } from './db.js';
import { TransactionApiHarness, transactionBody } from './harness.js';

/**
 * When PostgreSQL cannot answer in time (a lock held elsewhere, an overloaded server), a request is answered
 * 503 with Retry-After after DATABASE_STATEMENT_TIMEOUT, instead of hanging until the caller gives up, and the
 * retry the answer invites records the change exactly once.
 */
describe('database trouble (e2e over HTTP)', () => {
  let api: TransactionApiHarness;
  let merchant: { merchantId: string; integrationId: string; apiKey: string };

  beforeAll(async () => {
    api = await TransactionApiHarness.start({ DATABASE_STATEMENT_TIMEOUT: '500ms' });
    merchant = await api.merchantWithKey();
  });
  afterAll(async () => {
    await api.close();
  });

  it('answers a status change that waits on a locked row 503 with Retry-After; the retry changes it once', async () => {
    const created = await api.platform<{ uuid: string }>(
      'POST',
      '/internal/transactions',
      transactionBody(merchant.merchantId, merchant.integrationId),
    );
    expect(created.status).toBe(201);
    const uuid = created.body.uuid;

    const locker = new pg.Client({ connectionString: testEnv().databaseUrl });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('SELECT 1 FROM transaction WHERE uuid = $1 FOR UPDATE', [uuid]);

      const started = Date.now();
      const blocked = await api.platform('POST', `/internal/transactions/${uuid}/status`, { status: 'confirmed' });
      const waited = Date.now() - started;
      expect(blocked.status).toBe(503);
      expect(blocked.contentType).toMatch(/^application\/problem\+json/);
      expect(blocked.headers.get('retry-after')).toBe('1');
      expect(blocked.body).toEqual({
        type: 'urn:problem:unavailable',
        title: 'Service unavailable',
        status: 503,
        detail: 'The database is unavailable or did not answer in time. Try again in a moment.',
      });
      expect(waited).toBeGreaterThanOrEqual(450);
      expect(waited).toBeLessThan(5_000);
    } finally {
      await locker.query('ROLLBACK');
      await locker.end();
    }

    expect((await sql<{ status: string }>('SELECT status FROM transaction WHERE uuid = $1', [uuid]))[0].status).toBe(
      'waiting',
    );
    const retried = await api.platform<{ status: string }>('POST', `/internal/transactions/${uuid}/status`, {
      status: 'confirmed',
    });
    expect(retried.status).toBe(200);
    expect(retried.body.status).toBe('confirmed');
    expect(await eventsOf(uuid)).toEqual(['transaction.created', 'transaction.status_changed']);
  });

  it('answers the merchant read API 503 while its query cannot get an answer, and 200 again after', async () => {
    const locker = new pg.Client({ connectionString: testEnv().databaseUrl });
    await locker.connect();
    try {
      // An exclusive lock blocks every read of the table (a careless schema change would do the same).
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE transaction IN ACCESS EXCLUSIVE MODE');
      const read = await api.merchant(merchant.apiKey, '/v1.17/transactions?limit=1');
      expect(read.status).toBe(503);
      expect(read.headers.get('retry-after')).toBe('1');
      expect(read.body).toMatchObject({ type: 'urn:problem:unavailable', status: 503 });
    } finally {
      await locker.query('ROLLBACK');
      await locker.end();
    }
    const after = await api.merchant<{ data: unknown[] }>(merchant.apiKey, '/v1.17/transactions?limit=1');
    expect(after.status).toBe(200);
    expect(after.body.data).toHaveLength(1);
  });
});
