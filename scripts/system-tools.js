// The system commands the test suites run, each with the Debian package that provides it. `npm test` installs the
// missing ones before it runs anything (on Debian, as root), and lets the local PostgreSQL accept the replication
// connection of the read-replica tests (allowLocalReplication); `node scripts/system-tools.js` does only that.
// rabbitmqctl (per-run vhosts, broker restarts) is not listed: it comes with the RabbitMQ server the tests use.
import { spawnSync } from 'node:child_process';
import { accessSync, appendFileSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';

export const SYSTEM_TOOLS = [
  { command: 'php', pkg: 'php-cli', why: 'PHP-Post and signature receivers' },
  // The UI test launches this path (playwright-core with executablePath; it never downloads a browser).
  { command: '/usr/bin/chromium', pkg: 'chromium', why: 'merchant backend UI tests' },
  { command: 'openssl', pkg: 'openssl', why: 'self-signed certificate for a TLS test' },
  { command: 'tinyproxy', pkg: 'tinyproxy', why: 'egress-proxy tests' },
  // The package is the Prometheus server too: where systemd runs, installing it starts and enables a server on :9090,
  // which the tests do not need (`service` is stopped and disabled after the install).
  {
    command: 'promtool',
    pkg: 'prometheus',
    why: 'promtool checks /metrics and the alert rules',
    service: 'prometheus',
  },
];

function executable(path) {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Whether `command` (a name looked up on PATH, or an absolute path) is an executable file. */
export function onPath(command) {
  if (isAbsolute(command)) return executable(command);
  return (process.env.PATH ?? '').split(delimiter).some((dir) => dir !== '' && executable(join(dir, command)));
}

export function missingTools(tools = SYSTEM_TOOLS) {
  return tools.filter((tool) => !onPath(tool.command));
}

function apt(args) {
  const result = spawnSync('apt-get', ['-qq', '-o', 'DPkg::Lock::Timeout=300', ...args], {
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    encoding: 'utf8',
  });
  if (result.status !== 0) {
    process.stderr.write(`${result.stdout ?? ''}${result.stderr ?? ''}`);
    throw new Error(`apt-get ${args.join(' ')} failed (exit ${result.status ?? result.signal})`);
  }
}

/**
 * Installs the missing tools with apt-get (one line of output), or throws with what to install when this is not a
 * Debian machine or not root. Does nothing when every tool is there.
 */
export function provideSystemTools() {
  const missing = missingTools();
  if (missing.length === 0) return;
  const packages = missing.map((tool) => tool.pkg);
  const list = missing.map((tool) => `${tool.pkg} (${tool.why})`).join(', ');
  const debian = spawnSync('apt-get', ['--version'], { stdio: 'ignore' }).status === 0;
  if (!debian || process.getuid?.() !== 0) {
    const commands = missing.map((tool) => `${tool.command} (${tool.why})`).join(', ');
    throw new Error(
      debian
        ? `The tests need ${list}. Install as root: apt-get update && apt-get install -y --no-install-recommends ${packages.join(' ')}`
        : `The tests need these commands: ${commands}. Install them with this system's package manager ` +
            `(the Debian packages are ${packages.join(', ')}).`,
    );
  }
  console.log(`Installing ${list} with apt-get…`);
  apt(['update']);
  apt(['install', '-y', '--no-install-recommends', ...packages]);
  for (const { service } of missing.filter((tool) => tool.service)) {
    // Without systemd (a container) nothing was started and this fails harmlessly.
    spawnSync('systemctl', ['disable', '--now', service], { stdio: 'ignore' });
  }
  const still = missingTools(missing);
  if (still.length > 0) {
    throw new Error(`apt-get installed ${packages.join(' ')} but ${still.map((t) => t.command).join(', ')} is missing`);
  }
}

/** The local PostgreSQL the tests use when TEST_DATABASE_URL is unset (libs/testing/src/infrastructure.ts). */
const LOCAL_POSTGRES = 'postgres://postgres@127.0.0.1:5432/postgres';
const REPLICATION_LINE = 'host replication all 127.0.0.1/32 trust';

/** Whether the server at `url` accepts a physical replication connection from here: true, false, or the error. */
async function replicationAllowed(url) {
  const client = new pg.Client({ connectionString: url, replication: 'true', connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    return true;
  } catch (error) {
    // 28000: no pg_hba.conf line lets this connection in (`all` in the database column does not cover replication).
    if (error.code === '28000') return false;
    throw error;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * The read-replica tests (libs/testing/src/postgres-replica.ts) stream a replica of the test database with
 * pg_basebackup, which needs a replication connection from 127.0.0.1. When the local PostgreSQL refuses it (its
 * pg_hba.conf has no `replication` line: a line for `all` databases does not include it), this appends
 * `host replication all 127.0.0.1/32 trust` to that pg_hba.conf and reloads the server, and says so — the same
 * trust the file already gives every local connection of the tests. Nothing happens when it is allowed already, when
 * TEST_DATABASE_URL names another server, or when no local PostgreSQL answers; when the file cannot be written (not
 * root) it says what to add instead of failing: then only the read-replica tests fail.
 */
export async function allowLocalReplication() {
  if (process.env.TEST_DATABASE_URL?.trim()) return;
  try {
    if (await replicationAllowed(LOCAL_POSTGRES)) return;
  } catch {
    return; // no local PostgreSQL: the test setup says what to do
  }
  const client = new pg.Client({ connectionString: LOCAL_POSTGRES });
  await client.connect();
  try {
    const [{ hba_file: file }] = (await client.query('SHOW hba_file')).rows;
    try {
      appendFileSync(
        file,
        `\n# Added by the payments platform's test setup (scripts/system-tools.js): the read-replica tests stream a\n` +
          `# replica of the test database from this server with pg_basebackup.\n${REPLICATION_LINE}\n`,
      );
    } catch (error) {
      console.warn(
        `The read-replica tests need a replication connection to the local PostgreSQL, which ${file} does not ` +
          `allow, and it cannot be changed from here (${error.code ?? error.message}): add \`${REPLICATION_LINE}\` ` +
          'to it and reload PostgreSQL (SELECT pg_reload_conf()).',
      );
      return;
    }
    await client.query('SELECT pg_reload_conf()');
    console.log(`Added \`${REPLICATION_LINE}\` to ${file} and reloaded PostgreSQL (for the read-replica tests).`);
  } finally {
    await client.end();
  }
  // The reload is asynchronous: wait until new connections see the line.
  for (let i = 0; i < 50 && !(await replicationAllowed(LOCAL_POSTGRES)); i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  try {
    provideSystemTools();
    await allowLocalReplication();
  } catch (error) {
    console.error(error.message);
    process.exit(1);
  }
}
