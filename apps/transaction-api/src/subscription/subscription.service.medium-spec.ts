import { afterAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { sessionConnection, TRANSACTION_API_DATABASE } from '#persistence';
import { insertMerchant, testEnv } from '#testing';
import pg from 'pg';
import { MerchantRepository } from '../merchant/merchant.repository.js';
import { ReferenceChecker } from '../merchant/reference.checker.js';
import type { OutboxRelay } from '../outbox/outbox.relay.js';
import { OutboxWriter } from '../outbox/outbox.writer.js';
import { UnitOfWork } from '../outbox/unit-of-work.js';
import type { CreateSubscriptionDto } from './subscription.dto.js';
import { SubscriptionExceptionCode } from './subscription.exception.js';
import { SubscriptionRepository } from './subscription.repository.js';
import { SubscriptionService } from './subscription.service.js';

/**
 * Subscriptions and their events on a real database as transaction-api's role, each change with its outbox event in
 * one transaction: the lifecycle's rules (subscription.lifecycle.spec.ts) applied to stored rows, a repeated cancel
 * or end answered without an event, idempotent creation. The relay is said to run here (no NOTIFY, a wake-up that
 * does nothing); its publishing has its own specs.
 */
describe('SubscriptionService (real PostgreSQL)', () => {
  const pool = new pg.Pool({ ...sessionConnection(testEnv().databaseUrl, TRANSACTION_API_DATABASE), max: 2 });
  const admin = new pg.Pool({ connectionString: testEnv().databaseUrl, max: 1 });
  const relay = { isRelaying: true, wake: () => undefined } as unknown as OutboxRelay;
  const subscriptions = new SubscriptionService(
    new UnitOfWork(pool, new OutboxWriter(relay)),
    new SubscriptionRepository(),
    new ReferenceChecker(new MerchantRepository(pool)),
  );

  afterAll(async () => {
    await pool.end();
    await admin.end();
  });

  const eventTypesOf = async (subjectId: string) =>
    (await admin.query(`SELECT type FROM outbox_event WHERE subject_id = $1 ORDER BY seq`, [subjectId])).rows.map(
      (row) => row.type as string,
    );
  const dto = (merchantId: string, extra: Partial<CreateSubscriptionDto> = {}) =>
    ({ merchantId, amount: 4_900, currency: 'EUR', interval: 'P1M', ...extra }) as CreateSubscriptionDto;

  it('moves a subscription through its lifecycle, each change with its event; a repeated cancel emits nothing', async () => {
    const merchantId = await insertMerchant(admin);
    const { subscription, created } = await subscriptions.create(dto(merchantId, { referenceId: 'abo-1' }));
    expect(created).toBe(true);
    expect(subscription).toMatchObject({ status: 'active', referenceId: 'abo-1' });
    const id = subscription.id;
    expect(await subscriptions.recordEvent(id, { event: 'payment_failed' })).toMatchObject({ status: 'past_due' });
    expect(await subscriptions.recordEvent(id, { event: 'renewed' })).toMatchObject({ status: 'active' });
    expect(await subscriptions.recordEvent(id, { event: 'cancelled' })).toMatchObject({ status: 'cancelled' });
    expect(await subscriptions.recordEvent(id, { event: 'cancelled' })).toMatchObject({ status: 'cancelled' });
    expect(await eventTypesOf(id)).toEqual([
      'subscription.created',
      'subscription.payment_failed',
      'subscription.renewed',
      'subscription.cancelled',
    ]);
    const stored = await admin.query(`SELECT status FROM subscription WHERE id = $1`, [id]);
    expect(stored.rows).toEqual([{ status: 'cancelled' }]);
  });

  it('refuses an event its status does not allow, and one of a subscription that does not exist', async () => {
    const merchantId = await insertMerchant(admin);
    const { subscription } = await subscriptions.create(dto(merchantId));
    await subscriptions.recordEvent(subscription.id, { event: 'ended' });
    await expect(subscriptions.recordEvent(subscription.id, { event: 'renewed' })).rejects.toMatchObject({
      code: SubscriptionExceptionCode.EVENT_FORBIDDEN,
    });
    await expect(subscriptions.recordEvent(randomUUID(), { event: 'renewed' })).rejects.toMatchObject({
      code: SubscriptionExceptionCode.NOT_FOUND,
    });
    expect(await eventTypesOf(subscription.id)).toEqual(['subscription.created', 'subscription.ended']);
  });

  it('answers the same id and data again with the stored subscription, and refuses the id with other data', async () => {
    const merchantId = await insertMerchant(admin);
    const id = randomUUID();
    await subscriptions.create(dto(merchantId, { id }));
    expect((await subscriptions.create(dto(merchantId, { id }))).created).toBe(false);
    await expect(subscriptions.create(dto(merchantId, { id, amount: 1 }))).rejects.toMatchObject({
      code: SubscriptionExceptionCode.IDEMPOTENCY_CONFLICT,
    });
    expect(await eventTypesOf(id)).toEqual(['subscription.created']);
  });
});
