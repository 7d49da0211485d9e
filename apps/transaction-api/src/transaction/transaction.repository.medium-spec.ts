import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { testEnv } from '#testing';
import pg from 'pg';
import { TransactionRepository, type TransactionFilters } from './transaction.repository.js';

const ROWS = 20_000;

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  Plans?: PlanNode[];
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
}
const nodes = (plan: PlanNode): PlanNode[] => [plan, ...(plan.Plans ?? []).flatMap(nodes)];

/** Keyset pages against the real, migrated PostgreSQL: correct, and an index range scan however deep the page. */
describe('TransactionRepository pages (real PostgreSQL)', () => {
  const pool = new pg.Pool({ connectionString: testEnv().databaseUrl, max: 2 });
  const repository = new TransactionRepository(pool);
  const merchantId = randomUUID();

  beforeAll(async () => {
    await pool.query(`INSERT INTO merchant (id, name) VALUES ($1, 'Keyset merchant')`, [merchantId]);
    // Pairs of rows share a createdAt, so ties are broken by uuid.
    await pool.query(
      `INSERT INTO transaction (uuid, merchant_id, reference_id, status, psp, type, payment_method, amount, currency, creation_fingerprint, created_at, updated_at)
       SELECT gen_random_uuid(), $1, 'ref-' || (i % 100), (ARRAY['waiting','confirmed','declined'])[1 + i % 3], (ARRAY['Payrexx Direct','Stripe'])[1 + i % 2],
              (ARRAY['e-commerce','pos','tap-to-pay'])[1 + i % 3], 'visa', 100 + i, 'CHF', '\\x00',
              timestamptz '2026-01-01' + (i / 2) * interval '1 second', now()
         FROM generate_series(1, $2) AS i`,
      [merchantId, ROWS],
    );
    await pool.query('ANALYZE transaction');
  });
  afterAll(async () => {
    await pool.query('DELETE FROM transaction WHERE merchant_id = $1', [merchantId]);
    await pool.query('DELETE FROM merchant WHERE id = $1', [merchantId]);
    await pool.end();
  });

  it('walks a filtered list in pages with no duplicates or misses', async () => {
    const expected = (
      await pool.query<{ uuid: string }>(
        `SELECT uuid FROM transaction WHERE merchant_id = $1 AND status = 'confirmed' ORDER BY created_at DESC, uuid DESC`,
        [merchantId],
      )
    ).rows.map((row) => row.uuid);
    const seen: string[] = [];
    let after: { createdAt: Date; uuid: string } | undefined;
    for (;;) {
      const page = await repository.page(merchantId, { status: 'confirmed' }, after, 100);
      seen.push(...page.map((row) => row.uuid));
      if (page.length < 100) break;
      after = { createdAt: page[page.length - 1].createdAt, uuid: page[page.length - 1].uuid };
    }
    expect(seen).toEqual(expected);
  });

  it('plans every filter as an index scan with no sort, and a deep page reads no more than the first', async () => {
    const deep = (
      await pool.query<{ created_at: Date; uuid: string }>(
        `SELECT created_at, uuid FROM transaction WHERE merchant_id = $1 ORDER BY created_at DESC, uuid DESC OFFSET $2 LIMIT 1`,
        [merchantId, ROWS - 200],
      )
    ).rows[0];
    const cases: [TransactionFilters, string][] = [
      [{}, 'transaction_merchant_page_idx'],
      [{ status: 'confirmed' }, 'transaction_status_page_idx'],
      [{ referenceId: 'ref-7' }, 'transaction_reference_page_idx'],
      [{ psp: 'Stripe' }, 'transaction_psp_page_idx'],
      [{ type: 'pos' }, 'transaction_type_page_idx'],
    ];
    for (const [filters, index] of cases) {
      const where = ['merchant_id = $1'];
      const values: unknown[] = [merchantId];
      for (const [key, column] of [
        ['status', 'status'],
        ['referenceId', 'reference_id'],
        ['psp', 'psp'],
        ['type', 'type'],
      ] as const) {
        if (filters[key] !== undefined) {
          values.push(filters[key]);
          where.push(`${column} = $${values.length}`);
        }
      }
      const explain = async (cursor: boolean) => {
        const params = cursor ? [...values, deep.created_at, deep.uuid] : values;
        const keyset = cursor ? ` AND (created_at, uuid) < ($${values.length + 1}, $${values.length + 2})` : '';
        const { rows } = await pool.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
          `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) SELECT * FROM transaction WHERE ${where.join(' AND ')}${keyset} ORDER BY created_at DESC, uuid DESC LIMIT 21`,
          params,
        );
        return rows[0]['QUERY PLAN'][0].Plan;
      };
      for (const plan of [await explain(false), await explain(true)]) {
        const all = nodes(plan);
        expect([index, all.some((node) => node['Node Type'] === 'Sort')]).toEqual([index, false]);
        expect([index, all.some((node) => node['Index Name'] === index)]).toEqual([index, true]);
      }
      const blocks = (plan: PlanNode) => (plan['Shared Hit Blocks'] ?? 0) + (plan['Shared Read Blocks'] ?? 0);
      expect(blocks(await explain(true))).toBeLessThanOrEqual(blocks(await explain(false)) + 5);
    }
  });
});
