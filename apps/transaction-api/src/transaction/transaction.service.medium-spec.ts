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
import type { CreateTransactionDto } from './transaction.dto.js';
import { TransactionExceptionCode } from './transaction.exception.js';
import { TransactionRepository } from './transaction.repository.js';
import { FUTURE_CREATED_AT_MS, TransactionService } from './transaction.service.js';

/**
 * Payments and their status changes on a real database as transaction-api's role, each change with its event: the
 * status machine (transaction.status-machine.spec.ts) applied to stored rows, concurrent changes to one status
 * writing one event, idempotent recording by uuid, imports dated in the future refused. The relay is woken after each
 * commit with events (counted here); its publishing has its own specs.
 */
describe('TransactionService (real PostgreSQL)', () => {
  const pool = new pg.Pool({ ...sessionConnection(testEnv().databaseUrl, TRANSACTION_API_DATABASE), max: 6 });
  const admin = new pg.Pool({ connectionString: testEnv().databaseUrl, max: 1 });
  let wakes = 0;
  const relay = { isRelaying: true, wake: () => void (wakes += 1) } as unknown as OutboxRelay;
  const transactions = new TransactionService(
    new TransactionRepository(pool),
    new ReferenceChecker(new MerchantRepository(pool)),
    new OutboxWriter(relay),
  );

  afterAll(async () => {
    await pool.end();
    await admin.end();
  });

  const eventTypesOf = async (uuid: string) =>
    (await admin.query(`SELECT type FROM outbox_event WHERE subject_id = $1 ORDER BY seq`, [uuid])).rows.map(
      (row) => row.type as string,
    );
  const payment = (merchantId: string, extra: Partial<CreateTransactionDto> = {}) =>
    ({
      merchantId,
      status: 'waiting',
      psp: 'Payrexx Direct',
      type: 'e-commerce',
      paymentMethod: 'visa',
      amount: 1_990,
      currency: 'CHF',
      ...extra,
    }) as CreateTransactionDto;

  it('records a payment with its event and moves it by the status machine, one event per change', async () => {
    const merchantId = await insertMerchant(admin);
    const before = wakes;
    const { transaction, created } = await transactions.record(payment(merchantId, { referenceId: 'order-7' }));
    expect(created).toBe(true);
    const uuid = transaction.uuid as string;
    expect(transaction).toMatchObject({ status: 'waiting', referenceId: 'order-7' });
    expect(await transactions.changeStatus(uuid, { status: 'authorized' })).toMatchObject({ status: 'authorized' });
    expect(await transactions.changeStatus(uuid, { status: 'confirmed' })).toMatchObject({ status: 'confirmed' });
    // The same status again changes nothing.
    expect(await transactions.changeStatus(uuid, { status: 'confirmed' })).toMatchObject({ status: 'confirmed' });
    expect(await eventTypesOf(uuid)).toEqual([
      'transaction.created',
      'transaction.status_changed',
      'transaction.status_changed',
    ]);
    expect(wakes - before).toBe(3);
  });

  it('refuses a move the status machine forbids, a uuid it does not know, and an unknown merchant', async () => {
    const merchantId = await insertMerchant(admin);
    const { transaction } = await transactions.record(payment(merchantId, { status: 'confirmed' }));
    const uuid = transaction.uuid as string;
    await transactions.changeStatus(uuid, { status: 'refunded' });
    await expect(transactions.changeStatus(uuid, { status: 'confirmed' })).rejects.toMatchObject({
      code: TransactionExceptionCode.STATUS_TRANSITION_FORBIDDEN,
    });
    await expect(transactions.changeStatus(randomUUID(), { status: 'confirmed' })).rejects.toMatchObject({
      code: TransactionExceptionCode.NOT_FOUND,
    });
    await expect(transactions.record(payment(randomUUID()))).rejects.toMatchObject({
      code: MerchantExceptionCode.UNKNOWN_MERCHANT,
    });
    expect(await eventTypesOf(uuid)).toHaveLength(2);
  });

  it('writes one event when the same change is sent concurrently', async () => {
    const merchantId = await insertMerchant(admin);
    const { transaction } = await transactions.record(payment(merchantId));
    const uuid = transaction.uuid as string;
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => transactions.changeStatus(uuid, { status: 'confirmed' })),
    );
    expect(answers.every((answer) => answer.status === 'confirmed')).toBe(true);
    expect(await eventTypesOf(uuid)).toEqual(['transaction.created', 'transaction.status_changed']);
  });

  it('answers the same uuid and data again without a new event, refuses it with other data, and refuses a future import', async () => {
    const merchantId = await insertMerchant(admin);
    const uuid = randomUUID();
    expect((await transactions.record(payment(merchantId, { uuid }))).created).toBe(true);
    expect((await transactions.record(payment(merchantId, { uuid: uuid.toUpperCase() }))).created).toBe(false);
    await expect(transactions.record(payment(merchantId, { uuid, amount: 1 }))).rejects.toMatchObject({
      code: TransactionExceptionCode.IDEMPOTENCY_CONFLICT,
    });
    expect(await eventTypesOf(uuid)).toEqual(['transaction.created']);
    const future = new Date(Date.now() + FUTURE_CREATED_AT_MS + 60_000).toISOString();
    await expect(transactions.record(payment(merchantId, { createdAt: future }))).rejects.toMatchObject({
      code: TransactionExceptionCode.CREATED_AT_IN_FUTURE,
    });
  });
});
