// The system commands the test suites run, each with the Debian package that provides it. `npm test` installs the
// missing ones before it runs anything (on Debian, as root); `node scripts/system-tools.js` does only that.
// rabbitmqctl (per-run vhosts, broker restarts) is not listed: it comes with the RabbitMQ server the tests use.
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { pathToFileURL } from 'node:url';

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

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  try {
    provideSystemTools();
  } catch (error) {
    console.error(error.message);
    process.exit(1);
  }
}
