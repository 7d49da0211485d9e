import { Injectable } from '@nestjs/common';
import type { Sql } from '../common/sql.js';

export interface PayoutRow {
  id: string;
  merchantId: string;
  amount: number;
  currency: string;
  status: 'initialised';
  createdAt: Date;
}

@Injectable()
export class PayoutRepository {
  /** Inserts the payout unless its id is taken; returns whether it was inserted. */
  async insert(sql: Sql, row: PayoutRow): Promise<boolean> {
    const rows = await sql.rows(
      `INSERT INTO payout (id, merchant_id, amount, currency, status, created_at) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (id) DO NOTHING RETURNING id`,
      [row.id, row.merchantId, row.amount, row.currency, row.status, row.createdAt],
    );
    return rows.length === 1;
  }

  async find(sql: Sql, id: string): Promise<PayoutRow | null> {
    const rows = await sql.rows(
      `SELECT id, merchant_id AS "merchantId", amount, currency, status, created_at AS "createdAt" FROM payout WHERE id = $1`,
      [id],
    );
    return rows.length ? { ...(rows[0] as unknown as PayoutRow), amount: Number(rows[0].amount) } : null;
  }
}
