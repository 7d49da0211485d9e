// `npm run fuzz:long` — the fuzz tier (docs/fuzzing.md) with a longer random run than the suite's: the same
// catalogue of hostile values, plus FUZZ_RANDOM_PER_TARGET (200) fast-check values per parameter and body property
// instead of 4, from a new random seed each run (or FUZZ_SEED). The seed is printed first and last: a finding
// replays with `FUZZ_SEED=<seed> FUZZ_RANDOM_PER_TARGET=<n> npm run fuzz:long`. FUZZ_PROJECTS picks the apps
// (default: transaction-api,webhook-config). Each app's spec runs in its own Jest process, one after another, against
// the machine's PostgreSQL and RabbitMQ (a database and vhost of its own, as in `npm test`).
import { spawnSync } from 'node:child_process';

const seed = process.env.FUZZ_SEED ?? String(Math.floor(Math.random() * 2 ** 31));
const perTarget = process.env.FUZZ_RANDOM_PER_TARGET ?? '200';
const projects = (process.env.FUZZ_PROJECTS ?? 'transaction-api,webhook-config').split(',').map((p) => p.trim());

console.log(`fuzz:long: seed ${seed}, ${perTarget} random values per target, ${projects.join(' and ')}`);
const started = Date.now();
let failed = false;
for (const project of projects) {
  const result = spawnSync(
    process.execPath,
    [
      '--import',
      './libs/testing/jest-node-hooks.js',
      '--experimental-vm-modules',
      'node_modules/jest/bin/jest.js',
      '-c',
      `apps/${project}/jest.config.js`,
      `apps/${project}/test/fuzz.e2e-spec.ts`,
    ],
    {
      stdio: 'inherit',
      env: { ...process.env, FUZZ_SEED: seed, FUZZ_RANDOM_PER_TARGET: perTarget, FUZZ_TIMEOUT_MS: '7200000' },
    },
  );
  if (result.status !== 0) failed = true;
}
const minutes = ((Date.now() - started) / 60_000).toFixed(1);
console.log(
  `fuzz:long: ${failed ? 'FINDINGS' : 'nothing found'} in ${minutes} min; replay with ` +
    `FUZZ_SEED=${seed} FUZZ_RANDOM_PER_TARGET=${perTarget} npm run fuzz:long`,
);
process.exit(failed ? 1 : 0);
