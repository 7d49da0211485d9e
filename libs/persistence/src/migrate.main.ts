// `npm run migrate` / `nx run persistence:migrate`: creates the database if missing, then applies migrations.
// `... migrate.main.js revert [steps]` reverts. Reads DATABASE_URL (default: the contract's development URL).
import { runMigrateCli } from './migrate.cli.js';

process.exitCode = await runMigrateCli(process.argv.slice(2), process.env);
