import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash, randomUUID } from 'node:crypto';
import { testEnv } from '#testing';
import pg from 'pg';
import { platformEvent } from '../outbox/platform-event.js';
import { TransactionRepository, type NewTransaction } from './transaction.repository.js';
import { toTransactionRecord, type TransactionRow } from './transaction.row.js';
import { STATUSES_BEFORE } from './transaction.status-machine.js';

/**
 * The statements that write a transaction and its event (real PostgreSQL): the event JSON PostgreSQL builds is the
 * one platformEvent() + toTransactionRecord() build for the same row, and a status change decides on one reading.
 */
describe('TransactionRepository writes with their events (real PostgreSQL)', () => {
  const pool = new pg.Pool({ connectionString: testEnv().databaseUrl, max: 4 });
  const repository = new TransactionRepository(pool);
  const merchantId = randomUUID();
  const integrationId = randomUUID();

  const newTransaction = (overrides: Partial<TransactionRow> = {}): NewTransaction => {
    const now = new Date();
    return {
      uuid: randomUUID(),
      merchantId,
      integrationId: null,
      referenceId: null,
      status: 'waiting',
      psp: 'Payrexx Direct',
      type: 'e-commerce',
      paymentMethod: 'visa',
      amount: 1990,
      currency: 'CHF',
      threeDSecure: null,
      createdAt: now,
      updatedAt: now,
      ...overrides,
      fingerprint: createHash('sha256').update(randomUUID()).digest(),
    };
  };
  const eventOf = async (id: string) =>
    (
      await pool.query<{ type: string; subject_id: string; payload: string }>(
        'SELECT type, subject_id, payload::text AS payload FROM outbox_event WHERE id = $1',
        [id],
      )
    ).rows[0];
  /** What the event would be if built in TypeScript from the row, through JSON as it is published. */
  const expectedEvent = (id: string, type: 'transaction.created' | 'transaction.status_changed', row: TransactionRow) =>
    JSON.parse(
      JSON.stringify({
        ...platformEvent({
          type,
          merchantId: row.merchantId,
          integrationId: row.integrationId,
          subjectId: row.uuid,
          occurredAt: row.updatedAt,
          data: toTransactionRecord(row),
        }),
        id,
      }),
    );

  beforeAll(async () => {
    await pool.query(`INSERT INTO merchant (id, name) VALUES ($1, 'Events merchant')`, [merchantId]);
    await pool.query(
      `INSERT INTO integration (id, merchant_id, name, api_key_hash, api_key_prefix) VALUES ($1, $2, 'Shop', $3, 'pk_test_')`,
      [integrationId, merchantId, createHash('sha256').update(integrationId).digest()],
    );
  });
  afterAll(async () => {
    await pool.query('DELETE FROM transaction WHERE merchant_id = $1', [merchantId]);
    await pool.query('DELETE FROM integration WHERE id = $1', [integrationId]);
    await pool.query('DELETE FROM merchant WHERE id = $1', [merchantId]);
    await pool.end();
  });

  it('writes transaction.created exactly as platformEvent() would, for every kind of row', async () => {
    const rows = [
      newTransaction(),
      newTransaction({
        integrationId,
        referenceId: 'order-"42"\\ünïcode',
        threeDSecure: { eci: '05', source: '3ds', version: '2.2.0', flow: 'challenge' },
        amount: 9_007_199_254,
      }),
      // An imported payment: created long ago (milliseconds kept), recorded now.
      newTransaction({
        createdAt: new Date('2019-03-04T05:06:07.008Z'),
        updatedAt: new Date(),
        paymentMethod: 'twint',
        type: 'pos',
      }),
    ];
    for (const row of rows) {
      const id = randomUUID();
      expect(await repository.insertWithEvent(row, id, false)).toBe(true);
      const { fingerprint: _fingerprint, ...stored } = row;
      expect(await repository.findOfMerchant(merchantId, row.uuid)).toEqual(stored);
      const event = await eventOf(id);
      expect([event.type, event.subject_id]).toEqual(['transaction.created', row.uuid]);
      expect(JSON.parse(event.payload)).toEqual(expectedEvent(id, 'transaction.created', stored));
    }
  });

  it('writes nothing for a uuid that is taken', async () => {
    const row = newTransaction();
    await repository.insertWithEvent(row, randomUUID(), false);
    const id = randomUUID();
    expect(await repository.insertWithEvent({ ...row, amount: 5 }, id, false)).toBe(false);
    expect(await eventOf(id)).toBeUndefined();
  });

  it('changes an allowed status with its event in one statement, built from the changed row', async () => {
    const row = newTransaction({ integrationId, referenceId: 'r-1' });
    const { fingerprint: _fingerprint, ...stored } = row;
    await repository.insertWithEvent(row, randomUUID(), false);
    const id = randomUUID();
    const updatedAt = new Date(row.updatedAt.getTime() + 1234);
    const outcome = await repository.changeStatusWithEvent(
      row.uuid,
      'authorized',
      STATUSES_BEFORE.authorized,
      updatedAt,
      id,
      false,
    );
    expect(outcome).toEqual({ before: stored, changedAt: updatedAt });
    const after = { ...stored, status: 'authorized' as const, updatedAt };
    expect(await repository.findOfMerchant(merchantId, row.uuid)).toEqual(after);
    const event = await eventOf(id);
    expect([event.type, event.subject_id]).toEqual(['transaction.status_changed', row.uuid]);
    expect(JSON.parse(event.payload)).toEqual(expectedEvent(id, 'transaction.status_changed', after));
  });

  it('moves updatedAt forward by at least a millisecond even when the clock given is behind the stored one', async () => {
    const row = newTransaction();
    await repository.insertWithEvent(row, randomUUID(), false);
    const behind = new Date(row.updatedAt.getTime() - 60_000);
    const first = await repository.changeStatusWithEvent(
      row.uuid,
      'authorized',
      ['waiting'],
      behind,
      randomUUID(),
      false,
    );
    expect(first?.changedAt).toEqual(new Date(row.updatedAt.getTime() + 1));
    const id = randomUUID();
    const second = await repository.changeStatusWithEvent(row.uuid, 'confirmed', ['authorized'], behind, id, false);
    expect(second?.changedAt).toEqual(new Date(row.updatedAt.getTime() + 2));
    expect(JSON.parse((await eventOf(id)).payload).data.updatedAt).toBe(second!.changedAt!.toISOString());
  });

  it('changes nothing and writes no event for a status not reachable from the current one, or an unknown uuid', async () => {
    const row = newTransaction({ status: 'declined' });
    await repository.insertWithEvent(row, randomUUID(), false);
    const id = randomUUID();
    const outcome = await repository.changeStatusWithEvent(
      row.uuid,
      'confirmed',
      STATUSES_BEFORE.confirmed,
      new Date(),
      id,
      false,
    );
    expect(outcome).toMatchObject({ before: { status: 'declined' }, changedAt: null });
    expect((await repository.findOfMerchant(merchantId, row.uuid))?.status).toBe('declined');
    expect(await eventOf(id)).toBeUndefined();
    expect(
      await repository.changeStatusWithEvent(randomUUID(), 'confirmed', ['waiting'], new Date(), randomUUID(), false),
    ).toBeNull();
  });

  it('lets exactly one of concurrent moves of one transaction win, and the others see it lost', async () => {
    const row = newTransaction();
    await repository.insertWithEvent(row, randomUUID(), false);
    const ids = Array.from({ length: 8 }, () => randomUUID());
    const outcomes = await Promise.all(
      ids.map((id, i) =>
        repository.changeStatusWithEvent(
          row.uuid,
          i % 2 ? 'authorized' : 'declined',
          ['waiting'],
          new Date(),
          id,
          false,
        ),
      ),
    );
    expect(outcomes.filter((outcome) => outcome?.changedAt)).toHaveLength(1);
    // The losers read the transaction before the winner's change (it was waiting): they do not see a move.
    const written = await pool.query('SELECT count(*)::int AS n FROM outbox_event WHERE id = ANY($1::uuid[])', [ids]);
    expect(written.rows[0].n).toBe(1);
  });
});
