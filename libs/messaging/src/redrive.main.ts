// `npm run deliveries:redrive -- [--queue deliveries|events|commands] [--limit n] [--dry-run]`: moves parked
// messages back to the queues they came from (see redrive.cli.ts and docs/operations.md). Reads AMQP_URL.
import { runRedriveCli } from './redrive.cli.js';

process.exitCode = await runRedriveCli(process.argv.slice(2), process.env);
