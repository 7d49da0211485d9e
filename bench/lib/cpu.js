// CPU time by process group, read from /proc: which part of the machine a benchmark's work went to.
// A snapshot is taken before and after a phase; the difference, divided by the work done, tells the cost per unit
// of each group (dispatcher, RabbitMQ, PostgreSQL, …) — a figure that moves far less with the host's speed than
// a throughput does, so it shows whether a change made the work cheaper.
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

function readProcess(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const close = stat.lastIndexOf(')');
    const comm = stat.slice(stat.indexOf('(') + 1, close);
    const fields = stat.slice(close + 2).split(' ');
    // fields[11] and [12] are utime and stime (the 14th and 15th fields of the line).
    return { comm, ticks: Number(fields[11]) + Number(fields[12]) };
  } catch {
    return undefined; // exited meanwhile
  }
}

/** CPU ticks of every process now, keyed by pid, with the group `groupOf(pid, comm)` gives it. */
export function cpuSnapshot(groupOf) {
  const snapshot = new Map();
  if (process.platform !== 'linux') return snapshot;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    const read = readProcess(pid);
    if (read) snapshot.set(pid, { group: groupOf(pid, read.comm), ticks: read.ticks });
  }
  return snapshot;
}

/** CPU seconds per group between two snapshots (a process that started in between counts from zero). */
export function cpuSecondsBetween(before, after) {
  const seconds = {};
  for (const [pid, { group, ticks }] of after) {
    if (!group) continue;
    const delta = ticks - (before.get(pid)?.ticks ?? 0);
    seconds[group] = (seconds[group] ?? 0) + delta / TICKS_PER_SECOND;
  }
  return seconds;
}

/**
 * Groups the services every benchmark shares: RabbitMQ, PostgreSQL, and the given pids by name. With `rabbitmqPids`
 * only those processes count as RabbitMQ (the benchmark's own node, not the machine's idle broker beside it); with
 * `postgresPids` ({@link postgresPidsOf}) only those count as PostgreSQL (the benchmark's database, not another
 * one on the same server).
 */
export function groupBy(named, rabbitmqPids, postgresPids) {
  return (pid, comm) => {
    if (named.has(pid)) return named.get(pid);
    if (comm === 'postgres') return !postgresPids || postgresPids.has(pid) ? 'postgresql' : undefined;
    if (rabbitmqPids) return rabbitmqPids.has(pid) ? 'rabbitmq' : undefined;
    if (comm === 'beam.smp' || comm.startsWith('erl_') || comm === 'epmd') return 'rabbitmq';
    return undefined;
  };
}

/**
 * The PostgreSQL processes that work for `databaseUrl`'s database now: its sessions (the apps' pools, its autovacuum
 * workers) and the server's shared ones (WAL writer, checkpointer, background writer), which also serve any other
 * database's writes at the time. A session that ended before the call is not counted.
 */
export async function postgresPidsOf(databaseUrl) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query(
      `SELECT pid FROM pg_stat_activity
        WHERE (datname = current_database() AND pid <> pg_backend_pid()) OR datname IS NULL`,
    );
    return new Set(rows.map((row) => row.pid));
  } finally {
    await client.end();
  }
}
