// `npm test`: installs the system tools the suites run when they are missing and lets the local PostgreSQL accept
// the read-replica tests' replication connection (scripts/system-tools.js), runs lint
// and the format check, then typechecks and tests every project through nx (one project at a time: the suites
// share this machine's PostgreSQL and RabbitMQ), then prints one closing line with the totals over all projects.
// A failed lint or format check, or a typecheck/suite failing with no failed test, counts as one failed test and
// is named on the line before the totals.
import { spawn } from 'node:child_process';
import { allowLocalReplication, provideSystemTools } from './system-tools.js';

try {
  provideSystemTools();
  await allowLocalReplication();
} catch (error) {
  console.error(error.message);
  process.exit(1);
}

const env = { ...process.env, FORCE_COLOR: process.env.FORCE_COLOR ?? '1' };
const exited = (child) => new Promise((resolve) => child.on('close', (code) => resolve(code ?? 1)));

const failedChecks = [];
for (const script of ['lint', 'format:check']) {
  if ((await exited(spawn('npm', ['run', '--silent', script], { stdio: 'inherit', env }))) !== 0) {
    failedChecks.push(`npm run ${script}`);
  }
}

const args = ['run-many', '-t', 'typecheck', 'test', '--output-style=stream', ...process.argv.slice(2)];
const child = spawn('nx', args, { stdio: ['ignore', 'pipe', 'inherit'], env });

const totals = { passed: 0, failed: failedChecks.length, skipped: 0 };
let pending = '';
child.stdout.on('data', (chunk) => {
  process.stdout.write(chunk);
  const lines = (pending + chunk).split('\n');
  pending = lines.pop();
  for (const raw of lines) {
    // eslint-disable-next-line no-control-regex
    const line = raw.replace(/\x1b\[[0-9;]*m/g, '');
    const match = /Tests:\s+(.*) total/.exec(line);
    if (!match) continue;
    for (const [, count, kind] of match[1].matchAll(/(\d+) (passed|failed|skipped|todo)/g)) {
      if (kind in totals) totals[kind] += Number(count);
    }
  }
});

const code = await exited(child);
// A typecheck or a suite that fails before any test runs exits non-zero without a failed test to count.
if (code !== 0 && totals.failed === failedChecks.length) {
  failedChecks.push('nx typecheck/test');
  totals.failed += 1;
}
const skipped = totals.skipped ? `, ${totals.skipped} skipped` : '';
const closing = [
  ...failedChecks.map((check) => `${check} failed (counted as 1 failed)`),
  `${totals.passed} passed, ${totals.failed} failed${skipped}`,
];
console.log(`\n${closing.join('\n')}`);
process.exit(code || (failedChecks.length > 0 ? 1 : 0));
