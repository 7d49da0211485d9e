// `npm test`: typechecks and tests every project through nx (one project at a time: the suites share this
// machine's PostgreSQL and RabbitMQ), then prints one closing line with the totals over all projects.
import { spawn } from 'node:child_process';

const args = ['run-many', '-t', 'typecheck', 'test', '--output-style=stream', ...process.argv.slice(2)];
const child = spawn('nx', args, {
  stdio: ['ignore', 'pipe', 'inherit'],
  env: { ...process.env, FORCE_COLOR: process.env.FORCE_COLOR ?? '1' },
});

const totals = { passed: 0, failed: 0, skipped: 0 };
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

child.on('exit', (code) => {
  const skipped = totals.skipped ? `, ${totals.skipped} skipped` : '';
  console.log(`\n${totals.passed} passed, ${totals.failed} failed${skipped}`);
  process.exit(code ?? 1);
});
