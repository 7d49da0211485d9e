// `npm run migrate` / `nx run persistence:migrate`: creates the database if missing, then applies migrations.
// `... migrate.main.js revert [steps]` reverts. Reads DATABASE_URL (default: the contract's development URL).
import { DEFAULT_DATABASE_URL, ensureDatabase, migrate, revert } from './database.js';

const url = process.env.DATABASE_URL?.trim() || DEFAULT_DATABASE_URL;
const [command = 'up', steps = '1'] = process.argv.slice(2);

try {
  if (command === 'revert') {
    await revert(url, Number(steps));
    console.log(`migrate: reverted ${steps} migration(s)`);
  } else {
    if (await ensureDatabase(url)) console.log('migrate: created the database');
    const applied = await migrate(url);
    console.log(applied.length ? `migrate: applied ${applied.join(', ')}` : 'migrate: schema is up to date');
  }
} catch (error) {
  // pg errors do not carry the password; print the message only.
  console.error(`migrate: failed: ${(error as Error).message}`);
  process.exitCode = 1;
}
