import { Injectable } from '@nestjs/common';
import type { SubscriptionEvent } from '#domain';
import type { Sql } from '../common/sql.js';
import type { SubscriptionStatus } from './subscription.lifecycle.js';

export interface SubscriptionRow {
  id: string;
  merchantId: string;
  integrationId: string | null;
  referenceId: string | null;
  amount: number;
  currency: string;
  interval: string;
  status: SubscriptionStatus;
  lastEvent: SubscriptionEvent | null;
  createdAt: Date;
  updatedAt: Date;
}

const COLUMNS = `id, merchant_id AS "merchantId", integration_id AS "integrationId", reference_id AS "referenceId", amount,
  currency, interval, status, last_event AS "lastEvent", created_at AS "createdAt", updated_at AS "updatedAt"`;

const toRow = (raw: Record<string, unknown>): SubscriptionRow => ({
  ...(raw as unknown as SubscriptionRow),
  amount: Number(raw.amount),
});

/** Subscriptions, written inside the caller's database transaction. */
@Injectable()
export class SubscriptionRepository {
  /** Inserts the subscription unless its id is taken; returns whether it was inserted. */
  async insert(sql: Sql, row: SubscriptionRow): Promise<boolean> {
    const rows = await sql.rows(
      `INSERT INTO subscription (id, merchant_id, integration_id, reference_id, amount, currency, interval, status, last_event, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
       ON CONFLICT (id) DO NOTHING RETURNING id`,
      [
        row.id,
        row.merchantId,
        row.integrationId,
        row.referenceId,
        row.amount,
        row.currency,
        row.interval,
        row.status,
        row.lastEvent,
        row.createdAt,
        row.updatedAt,
      ],
    );
    return rows.length === 1;
  }

  async find(sql: Sql, id: string): Promise<SubscriptionRow | null> {
    const rows: Record<string, unknown>[] = await sql.rows(`SELECT ${COLUMNS} FROM subscription WHERE id = $1`, [id]);
    return rows.length ? toRow(rows[0]) : null;
  }

  async findForUpdate(sql: Sql, id: string): Promise<SubscriptionRow | null> {
    const rows: Record<string, unknown>[] = await sql.rows(
      `SELECT ${COLUMNS} FROM subscription WHERE id = $1 FOR UPDATE`,
      [id],
    );
    return rows.length ? toRow(rows[0]) : null;
  }

  async recordEvent(
    sql: Sql,
    id: string,
    status: SubscriptionStatus,
    event: SubscriptionEvent,
    at: Date,
  ): Promise<SubscriptionRow> {
    const rows: Record<string, unknown>[] = await sql.rows(
      // updatedAt only grows (see TransactionRepository.changeStatusWithEvent).
      `UPDATE subscription SET status = $2, last_event = $3, updated_at = GREATEST($4, updated_at + interval '1 millisecond')
        WHERE id = $1 RETURNING ${COLUMNS}`,
      [id, status, event, at],
    );
    return toRow(rows[0]);
  }
}
