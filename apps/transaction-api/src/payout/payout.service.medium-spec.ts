import { afterAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { sessionConnection, TRANSACTION_API_DATABASE } from '#persistence';
import { insertMerchant, testEnv } from '#testing';
import pg from 'pg';
import { MerchantExceptionCode } from '../merchant/merchant.exception.js';
import { MerchantRepository } from '../merchant/merchant.repository.js';
import { ReferenceChecker } from '../merchant/reference.checker.js';
import type { OutboxRelay } from '../outbox/outbox.relay.js';
import { OutboxWriter } from '../outbox/outbox.writer.js';
import { UnitOfWork } from '../outbox/unit-of-work.js';
import type { CreatePayoutDto } from './payout.dto.js';
import { PayoutExceptionCode } from './payout.exception.js';
import { PayoutRepository } from './payout.repository.js';
import { PayoutService } from './payout.service.js';

/**
 * Payouts recorded with their `payout.created` event in one transaction, on a real database as transaction-api's
 * role: an id sent again with the same data answers the stored payout and emits nothing, with other data it is
 * refused, and an unknown merchant is refused. The relay is said to run here (no NOTIFY, a wake-up that does nothing); its publishing has its own
 * specs.
 */
describe('PayoutService (real PostgreSQL)', () => {
  const pool = new pg.Pool({ ...sessionConnection(testEnv().databaseUrl, TRANSACTION_API_DATABASE), max: 2 });
  const admin = new pg.Pool({ connectionString: testEnv().databaseUrl, max: 1 });
  const relay = { isRelaying: true, wake: () => undefined } as unknown as OutboxRelay;
  const payouts = new PayoutService(
    new UnitOfWork(pool, new OutboxWriter(relay)),
    new PayoutRepository(),
    new ReferenceChecker(new MerchantRepository(pool)),
  );

  afterAll(async () => {
    await pool.end();
    await admin.end();
  });

  const eventsOf = async (subjectId: string) =>
    (await admin.query(`SELECT type, payload FROM outbox_event WHERE subject_id = $1`, [subjectId])).rows;
  const dto = (merchantId: string, extra: Partial<CreatePayoutDto> = {}) =>
    ({ merchantId, amount: 125_000, currency: 'CHF', ...extra }) as CreatePayoutDto;

  it('records a payout with its payout.created event; the same id and data again answer it with no new event', async () => {
    const merchantId = await insertMerchant(admin);
    const id = randomUUID();
    const first = await payouts.create(dto(merchantId, { id: id.toUpperCase() }));
    expect(first.created).toBe(true);
    expect(first.payout).toMatchObject({ id, status: 'initialised', amount: 125_000, currency: 'CHF' });
    const events = await eventsOf(id);
    expect(events).toHaveLength(1);
    expect(events[0].type).toBe('payout.created');
    expect(events[0].payload).toMatchObject({ merchantId, integrationId: null, subjectId: id, category: 'payout' });

    const again = await payouts.create(dto(merchantId, { id }));
    expect(again).toEqual({ payout: first.payout, created: false });
    expect(await eventsOf(id)).toHaveLength(1);
  });

  it('refuses an id recorded with other data, and a merchant that does not exist, recording nothing', async () => {
    const merchantId = await insertMerchant(admin);
    const id = randomUUID();
    await payouts.create(dto(merchantId, { id }));
    await expect(payouts.create(dto(merchantId, { id, amount: 1 }))).rejects.toMatchObject({
      code: PayoutExceptionCode.IDEMPOTENCY_CONFLICT,
    });
    const unknown = randomUUID();
    await expect(payouts.create(dto(unknown, { id: randomUUID() }))).rejects.toMatchObject({
      code: MerchantExceptionCode.UNKNOWN_MERCHANT,
    });
    expect(await eventsOf(id)).toHaveLength(1);
    expect((await admin.query(`SELECT 1 FROM payout WHERE merchant_id = $1`, [unknown])).rowCount).toBe(0);
  });
});
