import { afterAll, describe, expect, it } from '@jest/globals';
import { TRANSACTION_FIELDS } from '#domain';
import { testEnv } from '#testing';
import pg from 'pg';
import { TRANSACTION_INSERT_COLUMNS } from './transaction.row.js';

/**
 * The migrations restate the transaction's columns (they are history); the application's SQL takes them from
 * #domain's field table. This keeps the two equal: a field without its column, or a column no field or row part
 * reads, fails here rather than in a query.
 */
describe('payments.transaction has exactly the columns of the field table (real PostgreSQL)', () => {
  const pool = new pg.Pool({ connectionString: testEnv().databaseUrl, max: 1 });
  afterAll(() => pool.end());

  it('one column per field, plus the merchant and the creation fingerprint', async () => {
    const { rows } = await pool.query<{ column_name: string }>(
      `SELECT column_name FROM information_schema.columns
        WHERE table_schema = 'payments' AND table_name = 'transaction' ORDER BY column_name`,
    );
    const columns = rows.map((row) => row.column_name);
    expect(columns).toEqual([...TRANSACTION_INSERT_COLUMNS].sort());
    for (const field of TRANSACTION_FIELDS) expect(columns).toContain(field.column);
  });
});
