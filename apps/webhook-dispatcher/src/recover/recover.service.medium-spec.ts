import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUIDv7 } from 'node:crypto';
import { RECOVER_CANCEL_COMMAND, RECOVER_COMMAND, type RecoverCommand } from '#messaging';
import { insertMerchant, insertWebhook } from '#testing';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { DatabaseRetry } from '../common/database-retry.js';
import { RecoverRepository } from './recover.repository.js';
import { RecoverService } from './recover.service.js';
import { dispatcherSpecInfrastructure, type DispatcherSpecInfrastructure } from '../../test/spec-infrastructure.js';

/**
 * webhook-config's recover commands on a real database: a start records the recover once (one running per webhook),
 * a cancel stops it, and a start without `since` is refused (its command parked). On a database of its own: no recover
 * job of another suite sees its running recovers (of webhooks without a secret).
 */
describe('RecoverService (real PostgreSQL)', () => {
  let infra: DispatcherSpecInfrastructure;
  let admin: pg.Pool;
  let db: DataSource;
  let service: RecoverService;
  let merchantId: string;

  beforeAll(async () => {
    infra = await dispatcherSpecInfrastructure('recover-service', { poolSize: 2 });
    ({ admin, db } = infra);
    service = new RecoverService(new RecoverRepository(db, new DatabaseRetry()));
    merchantId = await insertMerchant(admin);
  });
  afterAll(async () => {
    await infra?.close();
  });

  const command = (
    type: RecoverCommand['type'],
    webhookId: string,
    recoverId: string = randomUUIDv7(),
  ): RecoverCommand => ({
    v: 1,
    type,
    recoverId,
    webhookId,
    merchantId,
    since: new Date(Date.now() - 3_600_000).toISOString(),
    total: 0,
    requestedAt: new Date().toISOString(),
  });
  const recoversOf = async (webhookId: string) =>
    (
      await admin.query<{ id: string; state: string }>(
        `SELECT id, state FROM webhook_recover WHERE webhook_id = $1 ORDER BY started_at`,
        [webhookId],
      )
    ).rows;

  it('records a start once, refuses a second recover of the webhook while one runs, and cancels it on request', async () => {
    const webhookId = await insertWebhook(admin, { merchantId });
    const start = command(RECOVER_COMMAND, webhookId);
    await service.handle(start);
    await service.handle(start); // the same command again (redelivered)
    await service.handle(command(RECOVER_COMMAND, webhookId));
    expect(await recoversOf(webhookId)).toEqual([{ id: start.recoverId, state: 'running' }]);

    await service.handle(command(RECOVER_CANCEL_COMMAND, webhookId, start.recoverId));
    expect(await recoversOf(webhookId)).toEqual([{ id: start.recoverId, state: 'cancelled' }]);
  });

  it('refuses a start without since (the command is parked) and records nothing', async () => {
    const webhookId = await insertWebhook(admin, { merchantId });
    const { since: _since, ...withoutSince } = command(RECOVER_COMMAND, webhookId);
    await expect(service.handle(withoutSince)).rejects.toThrow(/needs since/);
    expect(await recoversOf(webhookId)).toEqual([]);
  });

  it('starts no recover of a disabled webhook', async () => {
    const webhookId = await insertWebhook(admin, { merchantId, enabled: false });
    await service.handle(command(RECOVER_COMMAND, webhookId));
    expect(await recoversOf(webhookId)).toEqual([]);
  });
});
