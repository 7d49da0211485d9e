import pg from 'pg';
import { MIGRATIONS } from './migrations/index.js';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from './data-source.options.js';

/** DATABASE_URL when unset: the local PostgreSQL's `payments` database. */
export const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/payments';
/** The schemes a DATABASE_URL may have (the apps' configuration and the migrate CLI check the same). */
export const DATABASE_URL_PROTOCOLS: readonly string[] = ['postgres:', 'postgresql:'];

/** Connection URL of the same server's maintenance database (`postgres`). */
export function maintenanceUrl(url: string): string {
  const parsed = new URL(url);
  parsed.pathname = '/postgres';
  return parsed.toString();
}

export function databaseName(url: string): string {
  const name = decodeURIComponent(new URL(url).pathname.replace(/^\//, ''));
  if (!name) throw new Error('DATABASE_URL names no database');
  return name;
}

const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** Creates the database named in `url` when it does not exist yet. Returns true when it was created. */
export async function ensureDatabase(url: string): Promise<boolean> {
  const name = databaseName(url);
  const client = new pg.Client({ connectionString: maintenanceUrl(url) });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount) return false;
    try {
      await client.query(`CREATE DATABASE ${quoteIdent(name)}`);
    } catch (error) {
      // Another process created it between our check and our CREATE.
      if ((error as { code?: string }).code !== '42P04') throw error;
      return false;
    }
    return true;
  } finally {
    await client.end();
  }
}

export async function dropDatabase(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: maintenanceUrl(url) });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${quoteIdent(databaseName(url))} WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

/**
 * The migrator's session: the URL's login (the database owner), searching schema public only, where the migrations
 * table is and where every migration before AppSchemasAndRoles found its tables; later ones name their schemas.
 */
const migratorOptions = (url: string) =>
  dataSourceOptions({ url, poolSize: 1, applicationName: 'migrate', schema: 'public' });

/**
 * Applies every pending migration — or, with `through`, those up to and including the one of that name (tests of a
 * migration on a database populated in the layout before it); returns the names applied. Safe to run from several
 * processes.
 */
export async function migrate(url: string, { through }: { through?: string } = {}): Promise<string[]> {
  let migrations = MIGRATIONS;
  if (through !== undefined) {
    const last = MIGRATIONS.findIndex((migration) => new migration().name === through);
    if (last === -1) throw new Error(`no migration named ${through}`);
    migrations = MIGRATIONS.slice(0, last + 1);
  }
  const dataSource = new DataSource({ ...migratorOptions(url), migrations });
  await dataSource.initialize();
  try {
    // An advisory lock serialises concurrent migrators (e.g. several containers starting at once). They poll for it
    // rather than wait in pg_advisory_lock: a waiting statement holds a snapshot, which a CREATE INDEX CONCURRENTLY
    // in the lock holder's migration would wait for — a deadlock.
    while (!(await dataSource.query('SELECT pg_try_advisory_lock(727001) AS locked'))[0].locked) {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    return applied.map((migration) => migration.name);
  } finally {
    await dataSource.query('SELECT pg_advisory_unlock(727001)').catch(() => undefined);
    await dataSource.destroy();
  }
}

/** Reverts the last `steps` migrations (fewer if fewer are applied); returns the names reverted, latest first. */
export async function revert(url: string, steps = 1): Promise<string[]> {
  const dataSource = new DataSource(migratorOptions(url));
  await dataSource.initialize();
  const reverted: string[] = [];
  try {
    const [{ table }] = await dataSource.query(`SELECT to_regclass('migrations') IS NOT NULL AS "table"`);
    for (let i = 0; table && i < steps; i += 1) {
      const [last] = await dataSource.query('SELECT name FROM migrations ORDER BY id DESC LIMIT 1');
      if (!last) break;
      await dataSource.undoLastMigration({ transaction: 'each' });
      reverted.push(last.name);
    }
    return reverted;
  } finally {
    await dataSource.destroy();
  }
}
