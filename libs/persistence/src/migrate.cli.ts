import { DATABASE_URL_PROTOCOLS, DEFAULT_DATABASE_URL, ensureDatabase, migrate, revert } from './database.js';

export const MIGRATE_USAGE =
  'usage: migrate.main.js [up] | migrate.main.js revert [steps]  (steps: a whole number ≥ 1, default 1; reads DATABASE_URL)';

/**
 * The migrate CLI: `up` (the default) creates the database if missing and applies pending migrations; `revert [n]`
 * reverts the last n. Anything else is refused before touching a database — a mistyped rollback must not migrate
 * up. Answers the exit code; writes what it did through `out`/`err`.
 */
export async function runMigrateCli(
  args: string[],
  env: NodeJS.ProcessEnv,
  out: (line: string) => void = console.log,
  err: (line: string) => void = console.error,
): Promise<number> {
  const url = env.DATABASE_URL?.trim() || DEFAULT_DATABASE_URL;
  if (!DATABASE_URL_PROTOCOLS.includes(URL.parse(url)?.protocol ?? '')) {
    err(`migrate: DATABASE_URL must be a URL with scheme ${DATABASE_URL_PROTOCOLS.join(' or ')}`);
    return 2;
  }
  const [command = 'up', steps, ...rest] = args;
  const revertSteps = command === 'revert' && (steps === undefined || /^[1-9]\d{0,3}$/.test(steps));
  if (rest.length > 0 || !(command === 'up' ? steps === undefined : revertSteps)) {
    err(`migrate: ${MIGRATE_USAGE}`);
    return 2;
  }
  try {
    if (command === 'revert') {
      const reverted = await revert(url, Number(steps ?? 1));
      out(reverted.length ? `migrate: reverted ${reverted.join(', ')}` : 'migrate: no migration to revert');
    } else {
      if (await ensureDatabase(url)) out('migrate: created the database');
      const applied = await migrate(url);
      out(applied.length ? `migrate: applied ${applied.join(', ')}` : 'migrate: schema is up to date');
    }
    return 0;
  } catch (error) {
    // pg errors do not carry the password; print the message only.
    err(`migrate: failed: ${(error as Error).message}`);
    return 1;
  }
}
