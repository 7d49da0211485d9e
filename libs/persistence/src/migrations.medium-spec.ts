import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { testEnv } from '#testing';
import pg from 'pg';
import { dropDatabase, ensureDatabase, migrate, revert } from './database.js';
import { MIGRATIONS } from './migrations/index.js';

/** Runs against a scratch database of its own on the run's server, so the shared run database stays migrated. */
describe('migrations (real PostgreSQL)', () => {
  const url = testEnv().databaseUrl.replace(/\/([^/?]+)(\?|$)/, '/$1_roundtrip$2');
  const tables = async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query<{ table_name: string }>(
        `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name`,
      );
      return rows.map((row) => row.table_name);
    } finally {
      await client.end();
    }
  };

  beforeAll(async () => {
    await dropDatabase(url);
  });
  afterAll(async () => {
    await dropDatabase(url);
  });

  it('creates the database once, then reports it exists', async () => {
    expect(await ensureDatabase(url)).toBe(true);
    expect(await ensureDatabase(url)).toBe(false);
  });

  it('applies every migration, and a second run applies nothing', async () => {
    const applied = await migrate(url);
    expect(applied).toEqual(MIGRATIONS.map((migration) => new migration().name));
    expect(await tables()).toEqual(expect.arrayContaining(['merchant', 'integration', 'migrations']));
    expect(await migrate(url)).toEqual([]);
  });

  it('reverts every migration down to an empty schema and applies them again (round trip)', async () => {
    await revert(url, MIGRATIONS.length);
    expect(await tables()).toEqual(['migrations']);
    expect(await migrate(url)).toHaveLength(MIGRATIONS.length);
    expect(await tables()).toEqual(expect.arrayContaining(['merchant', 'integration']));
  });

  it('lets concurrent migrators serialise on the advisory lock', async () => {
    await revert(url, MIGRATIONS.length);
    const results = await Promise.all([migrate(url), migrate(url), migrate(url)]);
    expect(results.flat()).toHaveLength(MIGRATIONS.length);
  });
});
