import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { testEnv } from '#testing';
import pg from 'pg';
import type { TransactionCursor, TransactionOrder } from './transaction.cursor.js';
import { pageStatement, TransactionRepository, type TransactionFilters } from './transaction.repository.js';

const ROWS = 20_000;
/** About half of the rows were last changed at or after this instant (see the fill). */
const MIDPOINT = new Date('2026-02-01T01:23:00Z');

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  Plans?: PlanNode[];
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
}
const nodes = (plan: PlanNode): PlanNode[] => [plan, ...(plan.Plans ?? []).flatMap(nodes)];
/** What the tests need of a row. */
interface Row {
  uuid: string;
  status: string;
  createdAt: Date;
  updatedAt: Date;
}
const positionIn = (order: TransactionOrder, row: Row): TransactionCursor => ({
  at: order === 'updatedAt' ? row.updatedAt : row.createdAt,
  uuid: row.uuid,
});

/** Keyset pages against the real, migrated PostgreSQL: correct, and an index range scan however deep the page. */
describe('TransactionRepository pages (real PostgreSQL)', () => {
  const pool = new pg.Pool({ connectionString: testEnv().databaseUrl, max: 2 });
  const repository = new TransactionRepository(pool);
  const merchantId = randomUUID();
  let all: Row[];

  beforeAll(async () => {
    await pool.query(`INSERT INTO merchant (id, name) VALUES ($1, 'Keyset merchant')`, [merchantId]);
    // Pairs of rows share a createdAt, and (in another order) an updatedAt, so ties are broken by uuid. The updatedAt
    // values are spread over ~2.8 hours a month later, in an order unrelated to the creation order.
    await pool.query(
      `INSERT INTO transaction (uuid, merchant_id, reference_id, status, psp, type, payment_method, amount, currency, creation_fingerprint, created_at, updated_at)
       SELECT gen_random_uuid(), $1, 'ref-' || (i % 100), (ARRAY['waiting','confirmed','declined'])[1 + i % 3], (ARRAY['Payrexx Direct','Stripe'])[1 + i % 2],
              (ARRAY['e-commerce','pos','tap-to-pay'])[1 + i % 3], 'visa', 100 + i, 'CHF', '\\x00',
              timestamptz '2026-01-01' + (i / 2) * interval '1 second',
              timestamptz '2026-02-01' + ((i * 7919) % 10007) * interval '1 second'
         FROM generate_series(1, $2) AS i`,
      [merchantId, ROWS],
    );
    await pool.query('ANALYZE transaction');
    all = (
      await pool.query<Row>(
        `SELECT uuid, status, created_at AS "createdAt", updated_at AS "updatedAt" FROM transaction WHERE merchant_id = $1`,
        [merchantId],
      )
    ).rows;
  });
  afterAll(async () => {
    await pool.query('DELETE FROM transaction WHERE merchant_id = $1', [merchantId]);
    await pool.query('DELETE FROM merchant WHERE id = $1', [merchantId]);
    await pool.end();
  });

  /** The rows of `filters` in `order`, computed here from every row. */
  const expected = (order: TransactionOrder, keep: (row: Row) => boolean) => {
    const key = (row: Row) => [positionIn(order, row).at.getTime(), row.uuid] as const;
    const sign = order === 'updatedAt' ? 1 : -1;
    return all
      .filter(keep)
      .sort((x, y) => {
        const [a, b] = [key(x), key(y)];
        return sign * (a[0] !== b[0] ? a[0] - b[0] : a[1] < b[1] ? -1 : 1);
      })
      .map((row) => row.uuid);
  };

  it('walks filtered lists in pages with no duplicates or misses, in either order', async () => {
    expect(all).toHaveLength(ROWS);
    const cases: [TransactionOrder, TransactionFilters, (row: Row) => boolean][] = [
      ['-createdAt', { status: 'confirmed' }, (row) => row.status === 'confirmed'],
      ['updatedAt', {}, () => true],
      ['updatedAt', { updatedFrom: MIDPOINT }, (row) => row.updatedAt >= MIDPOINT],
      [
        'updatedAt',
        { updatedFrom: MIDPOINT, updatedTo: new Date('2026-02-01T02:00:00Z'), status: 'declined' },
        (row) =>
          row.updatedAt >= MIDPOINT &&
          row.updatedAt.getTime() < Date.parse('2026-02-01T02:00:00Z') &&
          row.status === 'declined',
      ],
      [
        '-createdAt',
        { createdFrom: new Date('2026-01-01T01:00:00Z'), createdTo: new Date('2026-01-01T02:00:00Z') },
        (row) =>
          row.createdAt.getTime() >= Date.parse('2026-01-01T01:00:00Z') &&
          row.createdAt.getTime() < Date.parse('2026-01-01T02:00:00Z'),
      ],
    ];
    for (const [order, filters, keep] of cases) {
      const want = expected(order, keep);
      expect(want.length).toBeGreaterThan(100);
      const seen: string[] = [];
      let after: TransactionCursor | undefined;
      for (;;) {
        const page = await repository.page(merchantId, filters, order, after, 100);
        seen.push(...page.map((row) => row.uuid));
        if (page.length < 100) break;
        after = positionIn(order, page[page.length - 1]);
      }
      expect([order, filters, seen]).toEqual([order, filters, want]);
    }
  });

  it('keeps updatedAt to the millisecond, so that a cursor is an exact position', async () => {
    await expect(
      pool.query(`UPDATE transaction SET updated_at = updated_at + interval '1 microsecond' WHERE uuid = $1`, [
        all[0].uuid,
      ]),
    ).rejects.toThrow(/transaction_updated_at_check/);
  });

  it('plans every filter and order as an index scan with no sort, and a deep page reads about what the first does', async () => {
    const cases: [TransactionOrder, TransactionFilters, string][] = [
      ['-createdAt', {}, 'transaction_merchant_page_idx'],
      ['-createdAt', { status: 'confirmed' }, 'transaction_status_page_idx'],
      ['-createdAt', { referenceId: 'ref-7' }, 'transaction_reference_page_idx'],
      ['-createdAt', { psp: 'Stripe' }, 'transaction_psp_page_idx'],
      ['-createdAt', { type: 'pos' }, 'transaction_type_page_idx'],
      ['updatedAt', {}, 'transaction_updated_page_idx'],
      ['updatedAt', { updatedFrom: MIDPOINT }, 'transaction_updated_page_idx'],
      ['updatedAt', { updatedFrom: MIDPOINT, status: 'confirmed' }, 'transaction_updated_page_idx'],
    ];
    for (const [order, filters, index] of cases) {
      // A page 200 rows before the end of the walk.
      const want = expected(order, () => true);
      const deep = positionIn(
        order,
        all.find((row) => row.uuid === want[ROWS - 200])!,
      );
      const explain = async (after: TransactionCursor | undefined) => {
        const { text, values } = pageStatement(merchantId, filters, order, after, 21);
        const { rows } = await pool.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
          `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${text}`,
          values,
        );
        return rows[0]['QUERY PLAN'][0].Plan;
      };
      const label = `${order} ${JSON.stringify(filters)}`;
      for (const plan of [await explain(undefined), await explain(deep)]) {
        const used = nodes(plan);
        expect([label, used.some((node) => node['Node Type'] === 'Sort')]).toEqual([label, false]);
        expect([label, used.some((node) => node['Index Name'] === index)]).toEqual([label, true]);
      }
      const blocks = (plan: PlanNode) => (plan['Shared Hit Blocks'] ?? 0) + (plan['Shared Read Blocks'] ?? 0);
      const [first, deeper] = [blocks(await explain(undefined)), blocks(await explain(deep))];
      // Not proportional to the depth (that would be hundreds of blocks): a filter checked on the way, in an order
      // other than the table's, reads a page's worth of scattered rows at any depth, more or less by chance.
      expect([label, first, deeper <= first * 1.5 + 5]).toEqual([label, first, true]);
    }
  });
});
