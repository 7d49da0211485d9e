import type pg from 'pg';

/** The queries of one connection or of the pool; `name` makes it a prepared statement (parsed once per connection). */
export interface Sql {
  rows<T = Record<string, unknown>>(text: string, values?: unknown[], name?: string): Promise<T[]>;
}

export function sqlOf(client: pg.Pool | pg.PoolClient): Sql {
  return {
    async rows<T>(text: string, values: unknown[] = [], name?: string): Promise<T[]> {
      const result = await client.query(name ? { name, text, values } : { text, values });
      return result.rows as T[];
    },
  };
}
