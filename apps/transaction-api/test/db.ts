import { testEnv } from '#testing';
import pg from 'pg';

/** Runs one query on the run's database. */
export async function sql<T extends pg.QueryResultRow = Record<string, unknown>>(
  text: string,
  values: unknown[] = [],
): Promise<T[]> {
  const client = new pg.Client({ connectionString: testEnv().databaseUrl });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** The types of the events recorded for one subject (transaction uuid), in outbox order. */
export const eventsOf = async (uuid: string): Promise<string[]> =>
  (await sql<{ type: string }>('SELECT type FROM outbox_event WHERE subject_id = $1 ORDER BY seq', [uuid])).map(
    (row) => row.type,
  );

/** Every row of every table of every schema, as text: what a database dump would contain. */
export async function dumpDatabase(): Promise<string> {
  const tables = await sql<{ name: string }>(
    `SELECT quote_ident(table_schema) || '.' || quote_ident(table_name) AS name FROM information_schema.tables
      WHERE table_schema NOT IN ('pg_catalog', 'information_schema') AND table_type = 'BASE TABLE'`,
  );
  const parts: string[] = [];
  for (const { name } of tables) {
    const rows = await sql<{ row: string }>(`SELECT t::text AS row FROM ${name} t`);
    parts.push(`-- ${name}`, ...rows.map((r) => r.row));
  }
  return parts.join('\n');
}
