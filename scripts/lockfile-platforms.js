// The npm registry reachable from our build machines serves only the Linux builds of packages that ship
// per-platform binaries (@swc/core-*, @nx/nx-*, ...). `npm install` then leaves the other platforms'
// optional packages out of package-lock.json, and `npm ci` refuses a lock file that lacks them.
// This script adds each missing optional platform package as a lock entry marked with its os/cpu/libc,
// so `npm ci` sees a complete lock file and skips those packages as foreign platforms.
// Run it after every `npm install` that changes package-lock.json: `node scripts/lockfile-platforms.js`.
import { readFileSync, writeFileSync } from 'node:fs';

const LOCK = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(LOCK, 'utf8'));
const packages = lock.packages;

const OS = ['darwin', 'win32', 'freebsd', 'android', 'openharmony', 'linux', 'sunos', 'aix', 'netbsd', 'openbsd'];
const CPU = [
  ['arm64', 'arm64'],
  ['aarch64', 'arm64'],
  ['x64', 'x64'],
  ['ia32', 'ia32'],
  ['arm', 'arm'],
  ['ppc64', 'ppc64'],
  ['s390x', 's390x'],
  ['riscv64', 'riscv64'],
  ['loong64', 'loong64'],
];

function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const os = OS.find((o) => parts.includes(o));
  const cpu = CPU.find(([token]) => parts.includes(token))?.[1];
  if (!os || !cpu) return undefined;
  const entry = { os: [os], cpu: [cpu] };
  if (os === 'linux') entry.libc = [parts.some((p) => p.startsWith('musl')) ? 'musl' : 'glibc'];
  return entry;
}

let added = 0;
for (const [path, pkg] of Object.entries(packages)) {
  for (const [dep, version] of Object.entries(pkg.optionalDependencies ?? {})) {
    const nested = `${path}/node_modules/${dep}`;
    const top = `node_modules/${dep}`;
    if (packages[nested] || packages[top]) continue;
    const platform = platformOf(dep);
    if (!platform) continue; // not a platform binary: leave npm's judgement alone
    packages[top] = { version, ...(pkg.dev ? { dev: true } : {}), optional: true, ...platform };
    added += 1;
  }
}

lock.packages = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))),
);
writeFileSync(LOCK, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`lockfile-platforms: added ${added} foreign-platform optional entries`);
