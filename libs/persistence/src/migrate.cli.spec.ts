import { describe, expect, it } from '@jest/globals';
import { MIGRATE_USAGE, runMigrateCli } from './migrate.cli.js';

/** Refusals happen before any connection: the URL below points at nothing, and none of these may reach it. */
const UNREACHABLE = { DATABASE_URL: 'postgres://postgres@127.0.0.1:9/never' };

async function run(args: string[], env: NodeJS.ProcessEnv = UNREACHABLE) {
  const lines: string[] = [];
  const code = await runMigrateCli(
    args,
    env,
    (line) => lines.push(line),
    (line) => lines.push(line),
  );
  return { code, lines };
}

describe('migrate CLI', () => {
  it.each([['--help'], ['status'], ['down'], ['up', '2'], ['revert', 'abc'], ['revert', '0'], ['revert', '1', 'x']])(
    'refuses %s with the usage (exit 2) and migrates nothing',
    async (...args) => {
      expect(await run(args)).toEqual({ code: 2, lines: [`migrate: ${MIGRATE_USAGE}`] });
    },
  );

  it('refuses a DATABASE_URL that is not PostgreSQL, naming the variable and not its value', async () => {
    const { code, lines } = await run([], { DATABASE_URL: 'mysql://root:hunter2@db/x' });
    expect(code).toBe(2);
    expect(lines).toEqual(['migrate: DATABASE_URL must be a URL with scheme postgres: or postgresql:']);
  });

  it('accepts up and revert [n]: they try the database (here: unreachable, exit 1 without the password)', async () => {
    for (const args of [[], ['up'], ['revert'], ['revert', '2']]) {
      const { code, lines } = await run(args, { DATABASE_URL: 'postgres://postgres:s3cret@127.0.0.1:9/never' });
      expect([args, code]).toEqual([args, 1]);
      expect(lines.join('\n')).toMatch(/^migrate: failed: /);
      expect(lines.join('\n')).not.toContain('s3cret');
    }
  });
});
