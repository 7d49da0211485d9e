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
  async insert(sql: Sql, row: PayoutRow): Promise<void> {
    await sql.rows(
      `INSERT INTO payout (id, merchant_id, amount, currency, status, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
      [row.id, row.merchantId, row.amount, row.currency, row.status, row.createdAt],
    );
  }
}
