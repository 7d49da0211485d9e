import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** Rows of `login_failure`: one per (attempt, key); keys are `email:<address>` and `addr:<ip>`. */
@Injectable()
export class LoginThrottleRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Records one attempt under each key; returns the row ids. */
  async record(keys: string[]): Promise<string[]> {
    const rows: Array<{ id: string }> = await this.dataSource.query(
      `INSERT INTO login_failure (key) SELECT unnest($1::text[]) RETURNING id`,
      [keys],
    );
    return rows.map((row) => String(row.id));
  }

  /** Attempts per key within the window, and when the oldest of them leaves it. */
  async countWithin(keys: string[], windowMs: number): Promise<Map<string, { count: number; oldest: Date }>> {
    const rows: Array<{ key: string; count: string; oldest: Date }> = await this.dataSource.query(
      `SELECT key, count(*) AS count, min(created_at) AS oldest FROM login_failure
        WHERE key = ANY($1::text[]) AND created_at > now() - make_interval(secs => $2)
        GROUP BY key`,
      [keys, windowMs / 1000],
    );
    return new Map(rows.map((row) => [row.key, { count: Number(row.count), oldest: row.oldest }]));
  }

  async deleteIds(ids: string[]): Promise<void> {
    if (ids.length) await this.dataSource.query(`DELETE FROM login_failure WHERE id = ANY($1::bigint[])`, [ids]);
  }

  async deleteKey(key: string): Promise<void> {
    await this.dataSource.query(`DELETE FROM login_failure WHERE key = $1`, [key]);
  }

  async deleteOlderThan(windowMs: number): Promise<void> {
    await this.dataSource.query(`DELETE FROM login_failure WHERE created_at <= now() - make_interval(secs => $1)`, [
      windowMs / 1000,
    ]);
  }
}
