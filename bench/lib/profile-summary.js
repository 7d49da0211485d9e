// `node bench/lib/profile-summary.js <file.cpuprofile> [deliveries]` — where a process's CPU went, by component.
//
// A V8 CPU profile (node --cpu-prof; BENCH_PROFILE=<app> makes the benchmarks write one per app process) gives each
// sample's stack. Each sample's time is charged to the component of its innermost frame that belongs to one:
// this project's code by folder (fan-out, delivery, ...), a library by package (amqplib, pg, undici, ...), V8's
// own entries (garbage collector, idle, program). Node's internals (streams, timers, sockets) and V8 built-ins
// (JSON, crypto) are charged to whoever called them, so `undici` includes its sockets' writes and `pg` its
// protocol's parsing. With `deliveries`, the busy time is also printed per delivery (ms).
import { readFileSync } from 'node:fs';

/** The component of a frame's script, or undefined for Node's internals and V8 built-ins (charged to the caller). */
export function componentOf(url) {
  if (!url) return undefined;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (pkg) return packageGroup(pkg[1]);
  const app = /dist\/apps\/([^/]+)\/src\/([^/]+)/.exec(url);
  if (app) return app[2].endsWith('.js') ? `${app[1]} (main)` : app[2];
  const lib = /dist\/libs\/([^/]+)\/src\/([^/]+)/.exec(url);
  if (lib) return `#${lib[1]}${lib[2].endsWith('.js') ? '' : `/${lib[2]}`}`;
  return undefined;
}

const GROUPS = {
  amqplib: 'amqp',
  'amqp-connection-manager': 'amqp',
  pg: 'pg',
  'pg-protocol': 'pg',
  'pg-pool': 'pg',
  'pg-types': 'pg',
  typeorm: 'pg',
  undici: 'undici',
  '@nestjs/core': 'nest',
  '@nestjs/common': 'nest',
  '@opentelemetry/api': 'tracing',
  pino: 'logging',
};
const packageGroup = (name) => (Object.hasOwn(GROUPS, name) ? GROUPS[name] : name);

const SPECIAL = { '(garbage collector)': 'gc', '(idle)': 'idle', '(program)': 'program', '(root)': 'node' };

export function summarise(profile) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const componentCache = new Map();
  const componentOfNode = (id) => {
    if (componentCache.has(id)) return componentCache.get(id);
    const node = byId.get(id);
    const special = Object.hasOwn(SPECIAL, node.callFrame.functionName)
      ? SPECIAL[node.callFrame.functionName]
      : undefined;
    let component = special ?? componentOf(node.callFrame.url);
    if (component === undefined) component = parent.has(id) ? componentOfNode(parent.get(id)) : 'node';
    componentCache.set(id, component);
    return component;
  };
  const micros = new Map();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    total += delta;
    const component = componentOfNode(id);
    micros.set(component, (micros.get(component) ?? 0) + delta);
  });
  const idle = micros.get('idle') ?? 0;
  const busy = total - idle;
  const rows = [...micros.entries()]
    .filter(([component]) => component !== 'idle')
    .sort((a, b) => b[1] - a[1])
    .map(([component, us]) => ({ component, ms: us / 1000, share: us / busy }));
  return { wallMs: total / 1000, busyMs: busy / 1000, rows };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [file, deliveries] = process.argv.slice(2);
  if (!file) {
    console.error('usage: node bench/lib/profile-summary.js <file.cpuprofile> [deliveries]');
    process.exit(2);
  }
  const { wallMs, busyMs, rows } = summarise(JSON.parse(readFileSync(file, 'utf8')));
  const per = deliveries ? Number(deliveries) : undefined;
  console.log(
    `profile ${wallMs.toFixed(0)} ms, busy ${busyMs.toFixed(0)} ms` +
      (per ? `, ${(busyMs / per).toFixed(4)} ms per delivery` : ''),
  );
  for (const { component, ms, share } of rows) {
    const perDelivery = per ? `  ${(ms / per).toFixed(4)} ms/delivery` : '';
    console.log(
      `${String(component).padEnd(28)} ${ms.toFixed(0).padStart(8)} ms  ${(share * 100).toFixed(1).padStart(5)} %${perDelivery}`,
    );
  }
}
