import type { MigrationInterface, QueryRunner } from 'typeorm';

const INDEX = 'transaction_updated_page_idx';
const CHECK = 'transaction_updated_at_check';

/**
 * The merchant list's second order, oldest change first: keyset pagination on (updated_at, uuid) inside one
 * merchant, for catching up on every transaction changed since an instant. The index makes every page an index
 * range scan, however deep. `updated_at` is kept to the millisecond like `created_at` (the services only ever write
 * whole milliseconds; the CHECK makes sure), so a cursor — a millisecond and a uuid — is an exact position.
 *
 * Transactions are recorded all the time, so nothing here holds their writes for longer than a moment: the index
 * is built CONCURRENTLY (outside a transaction; an interrupted build leaves an invalid index behind, which the next
 * run drops first), and the CHECK is added NOT VALID (a brief lock, given up after 10 s rather than queueing every
 * write behind a long transaction) and then validated without blocking writes.
 */
export class TransactionUpdatedPageIndex1763801000000 implements MigrationInterface {
  name = 'TransactionUpdatedPageIndex1763801000000';
  transaction = false;

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS ${INDEX}`);
    await queryRunner.query(`CREATE INDEX CONCURRENTLY ${INDEX} ON transaction (merchant_id, updated_at, uuid)`);
    await queryRunner.query(`SET lock_timeout = '10s'`);
    try {
      await queryRunner.query(
        `ALTER TABLE transaction DROP CONSTRAINT IF EXISTS ${CHECK},
           ADD CONSTRAINT ${CHECK} CHECK (updated_at = date_trunc('milliseconds', updated_at)) NOT VALID`,
      );
    } finally {
      await queryRunner.query(`RESET lock_timeout`);
    }
    await queryRunner.query(`ALTER TABLE transaction VALIDATE CONSTRAINT ${CHECK}`);
  }

  /** TypeORM reverts inside a transaction whatever `transaction` says. */
  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE transaction DROP CONSTRAINT ${CHECK}`);
    await queryRunner.query(`DROP INDEX ${INDEX}`);
  }
}
