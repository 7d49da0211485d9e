import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** Rows of `login_failure`: one per (attempt, key); keys are `email:<address>` and `addr:<ip>`. */
@Injectable()
export class LoginThrottleRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Records one attempt under each key and counts the attempts per key within the window, including this one.
   * Serialised per key (transaction-scoped advisory locks, taken in key order): of concurrent attempts, each
   * sees exactly the ones recorded before it, so the first ones up to the limit pass and the rest are refused.
   * (Recording and counting apart let twelve concurrent attempts all count twelve and all be refused.)
   */
  async recordAndCount(
    keys: string[],
    windowMs: number,
  ): Promise<{ ids: string[]; counts: Map<string, { count: number; oldest: Date }> }> {
    return this.dataSource.transaction(async (manager) => {
      await manager.query(
        `SELECT pg_advisory_xact_lock(hashtextextended(k, 0)) FROM unnest($1::text[]) AS k ORDER BY k`,
        [keys],
      );
      const inserted: Array<{ id: string }> = await manager.query(
        `INSERT INTO login_failure (key) SELECT unnest($1::text[]) RETURNING id`,
        [keys],
      );
      const rows: Array<{ key: string; count: string; oldest: Date }> = await manager.query(
        `SELECT key, count(*) AS count, min(created_at) AS oldest FROM login_failure
          WHERE key = ANY($1::text[]) AND created_at > now() - make_interval(secs => $2)
          GROUP BY key`,
        [keys, windowMs / 1000],
      );
      return {
        ids: inserted.map((row) => String(row.id)),
        counts: new Map(rows.map((row) => [row.key, { count: Number(row.count), oldest: row.oldest }])),
      };
    });
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
