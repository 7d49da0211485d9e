import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** A budget of failed attempts: its key and the window its attempts count in. */
export interface ThrottleKey {
  key: string;
  windowMs: number;
}

/**
 * Rows of `login_failure`: one per (attempt, key); keys are `pair:<e-mail> <address>`, `addr:<address>` and
 * `email:<e-mail>`. And `login_known_address`: the addresses each e-mail has signed in from.
 */
@Injectable()
export class LoginThrottleRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Records one attempt under each key and counts the attempts per key within its window, including this one.
   * Serialised per key (transaction-scoped advisory locks, taken in key order): of concurrent attempts, each
   * sees exactly the ones recorded before it, so the first ones up to the limit pass and the rest are refused.
   * (Recording and counting apart let twelve concurrent attempts all count twelve and all be refused.)
   */
  async recordAndCount(
    keys: ThrottleKey[],
  ): Promise<{ ids: string[]; counts: Map<string, { count: number; oldest: Date }> }> {
    const names = keys.map(({ key }) => key);
    const windows = keys.map(({ windowMs }) => windowMs / 1000);
    return this.dataSource.transaction(async (manager) => {
      await manager.query(
        `SELECT pg_advisory_xact_lock(hashtextextended(k, 0)) FROM unnest($1::text[]) AS k ORDER BY k`,
        [names],
      );
      const inserted: Array<{ id: string }> = await manager.query(
        `INSERT INTO login_failure (key) SELECT unnest($1::text[]) RETURNING id`,
        [names],
      );
      const rows: Array<{ key: string; count: string; oldest: Date }> = await manager.query(
        `SELECT f.key, count(*) AS count, min(f.created_at) AS oldest
           FROM login_failure f
           JOIN unnest($1::text[], $2::float8[]) AS w (key, secs) ON w.key = f.key
          WHERE f.created_at > now() - make_interval(secs => w.secs)
          GROUP BY f.key`,
        [names, windows],
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

  async deleteKeys(keys: string[]): Promise<void> {
    await this.dataSource.query(`DELETE FROM login_failure WHERE key = ANY($1::text[])`, [keys]);
  }

  async deleteOlderThan(windowMs: number): Promise<void> {
    await this.dataSource.query(`DELETE FROM login_failure WHERE created_at <= now() - make_interval(secs => $1)`, [
      windowMs / 1000,
    ]);
  }

  /** Whether `address` signed in to `email` within `withinMs`. */
  async isKnownAddress(email: string, address: string, withinMs: number): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      `SELECT 1 FROM login_known_address
        WHERE email = $1 AND address = $2 AND signed_in_at > now() - make_interval(secs => $3)`,
      [email, address, withinMs / 1000],
    );
    return rows.length > 0;
  }

  /** Records a successful sign-in of `email` from `address`, and forgets addresses unused for `withinMs`. */
  async rememberAddress(email: string, address: string, withinMs: number): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO login_known_address (email, address) VALUES ($1, $2)
       ON CONFLICT (email, address) DO UPDATE SET signed_in_at = now()`,
      [email, address],
    );
    await this.dataSource.query(
      `DELETE FROM login_known_address WHERE signed_in_at <= now() - make_interval(secs => $1)`,
      [withinMs / 1000],
    );
  }
}
