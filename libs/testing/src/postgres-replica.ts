import { execFile, execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freeServerPort } from './ports.js';
import { waitFor } from './test-env.js';

export interface PostgresReplica {
  /** The replica's URL of the primary URL's database: same login and database, the replica's port. */
  url: string;
  port: number;
  /** The temporary directory of its data, socket and log (deleted by `destroy`). */
  dir: string;
  /** How long pg_basebackup took, how long the replica took to start and stream, and how much it copied. */
  figures: { backupMs: number; startMs: number; copiedBytes: number };
  /** Runs a statement on the replica as the primary URL's login (a superuser) and answers its rows. */
  query: <T = Record<string, unknown>>(sql: string, values?: unknown[]) => Promise<T[]>;
  /** Stops replaying WAL (it still receives it): what the primary commits from now on is not seen on the replica. */
  pauseReplay: () => Promise<void>;
  resumeReplay: () => Promise<void>;
  /** Waits until the replica has replayed everything the primary had written when this was called. */
  caughtUp: (timeoutMs?: number) => Promise<void>;
  /** Stops the replica (`pg_ctl stop -m fast`): connections to its port are refused until `start`. */
  stop: () => Promise<void>;
  /** Starts it again, on the same port, and waits until it streams. */
  start: () => Promise<void>;
  /** Stops it at once and deletes its files. Safe to call twice, and after a failed start. */
  destroy: () => Promise<void>;
}

/** The settings a hot standby must have at least as high as its primary's, or it refuses to start. */
const AT_LEAST_THE_PRIMARY = [
  'max_connections',
  'max_worker_processes',
  'max_wal_senders',
  'max_prepared_transactions',
  'max_locks_per_transaction',
];

const run = promisify(execFile);

/** The uid and gid of the OS user `name`. */
function osUser(name: string): { uid: number; gid: number } {
  const id = (flag: string) => Number(execFileSync('id', [flag, name], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

/**
 * Starts a streaming replica of the PostgreSQL server behind `primaryUrl` on this machine, with the installed
 * PostgreSQL binaries of the server's major version (`/usr/lib/postgresql/<major>/bin`, or POSTGRES_BIN):
 * `pg_basebackup -R -X stream --checkpoint=fast` into a temporary directory, then `pg_ctl start` on a free loopback
 * port with its socket in that directory, its own pg_hba.conf (trust, like the test server's) and no other
 * configuration of the primary. pg_basebackup copies the whole cluster (every database on it), so the test server
 * should stay small. It needs a replication connection to the primary: `npm test` lets the local test server accept
 * one (scripts/system-tools.js). PostgreSQL refuses to run as root: as root the replica runs as the OS user
 * `postgres`. `destroy()` also runs when the process exits.
 */
export async function startPostgresReplica(primaryUrl: string): Promise<PostgresReplica> {
  const primary = new URL(primaryUrl);
  const login = decodeURIComponent(primary.username || 'postgres');
  const client = new pg.Client({ connectionString: primaryUrl });
  await client.connect();
  let major: number;
  let limits: Array<{ name: string; setting: string }>;
  try {
    major = Math.floor(Number((await client.query('SHOW server_version_num')).rows[0].server_version_num) / 10_000);
    limits = (await client.query('SELECT name, setting FROM pg_settings WHERE name = ANY($1)', [AT_LEAST_THE_PRIMARY]))
      .rows;
  } finally {
    await client.end();
  }
  const bin = process.env.POSTGRES_BIN ?? `/usr/lib/postgresql/${major}/bin`;
  for (const tool of ['pg_basebackup', 'pg_ctl']) {
    if (!existsSync(join(bin, tool))) {
      throw new Error(`the replica tests need PostgreSQL ${major}'s ${tool} in ${bin} (or set POSTGRES_BIN)`);
    }
  }
  // As root, the server and its files belong to `postgres`; otherwise to whoever runs the tests.
  const owner = process.getuid?.() === 0 ? osUser('postgres') : undefined;
  const dir = mkdtempSync(join(tmpdir(), 'payments-pg-replica-'));
  // HOME: no ~/.pgpass of whoever runs the tests is read (or named in the replica's primary_conninfo).
  const as = {
    ...owner,
    env: { ...process.env, HOME: dir, PGPASSWORD: decodeURIComponent(primary.password) || undefined },
  };
  const data = join(dir, 'data');
  const logFile = join(dir, 'postgres.log');
  if (owner) chownSync(dir, owner.uid, owner.gid);
  const port = await freeServerPort();
  const url = new URL(primaryUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);

  let destroyed = false;
  const pidOf = () => {
    try {
      return Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]) || undefined;
    } catch {
      return undefined;
    }
  };
  const destroyNow = () => {
    if (destroyed) return;
    destroyed = true;
    const pid = pidOf();
    try {
      if (pid) process.kill(pid, 'SIGQUIT'); // immediate shutdown: the postmaster ends its children
    } catch {
      // already gone
    }
    rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
  };
  process.once('exit', destroyNow);

  const logTail = () => {
    try {
      return readFileSync(logFile, 'utf8').slice(-3_000);
    } catch {
      return '(no log)';
    }
  };
  const options = [
    `-c port=${port}`,
    `-c listen_addresses=127.0.0.1`,
    `-c unix_socket_directories=${dir}`,
    '-c hot_standby=on',
    '-c shared_buffers=16MB',
    '-c fsync=off',
    ...limits.map(({ name, setting }) => `-c ${name}=${setting}`),
  ].join(' ');
  const pgCtl = (...args: string[]) => run(join(bin, 'pg_ctl'), ['-D', data, ...args], { ...as, timeout: 120_000 });
  const query = async <T>(sql: string, values: unknown[] = []): Promise<T[]> => {
    const replica = new pg.Client({ connectionString: url.toString() });
    await replica.connect();
    try {
      return (await replica.query(sql, values)).rows as T[];
    } finally {
      await replica.end();
    }
  };
  const streaming = () =>
    waitFor(
      async () =>
        (await query<{ status: string }>('SELECT status FROM pg_stat_wal_receiver'))[0]?.status === 'streaming',
      {
        timeoutMs: 30_000,
        intervalMs: 100,
        what: 'the replica to stream from the primary',
      },
    );
  const start = async () => {
    try {
      await pgCtl('-l', logFile, '-w', '-t', '60', '-o', options, 'start');
    } catch (error) {
      throw new Error(`the replica did not start (${(error as Error).message.trim()}); its log:\n${logTail()}`, {
        cause: error,
      });
    }
    await streaming();
  };

  try {
    const backupStarted = Date.now();
    try {
      await run(
        join(bin, 'pg_basebackup'),
        ['-h', primary.hostname, '-p', primary.port || '5432', '-U', login, '-D', data, '-R', '-X', 'stream'].concat([
          '--checkpoint=fast',
          '--no-sync',
          '--no-manifest',
        ]),
        { ...as, timeout: 120_000 },
      );
    } catch (error) {
      const text = `${(error as { stderr?: string }).stderr ?? ''}${(error as Error).message}`;
      const hint = /pg_hba\.conf/.test(text)
        ? ' — the server allows no replication connection from here: `node scripts/system-tools.js` (which `npm test` ' +
          "runs) adds `host replication all 127.0.0.1/32 trust` to the local test server's pg_hba.conf"
        : '';
      throw new Error(`pg_basebackup failed${hint}: ${text.trim()}`, { cause: error });
    }
    const backupMs = Date.now() - backupStarted;
    const copiedBytes = Number(execFileSync('du', ['-sb', data], { encoding: 'utf8' }).split('\t')[0]);
    // Only what the replica needs of its own: no postgresql.conf of the primary (on Debian it is not in the data
    // directory anyway); the settings are given to pg_ctl, which override postgresql.auto.conf too.
    for (const [file, text] of [
      ['postgresql.conf', ''],
      ['pg_hba.conf', 'local all all trust\nhost all all 127.0.0.1/32 trust\n'],
      ['pg_ident.conf', ''],
    ]) {
      writeFileSync(join(data, file), text, { mode: 0o600 });
      if (owner) chownSync(join(data, file), owner.uid, owner.gid);
    }
    const startStarted = Date.now();
    await start();
    const startMs = Date.now() - startStarted;

    return {
      url: url.toString(),
      port,
      dir,
      figures: { backupMs, startMs, copiedBytes },
      query,
      pauseReplay: async () => {
        // The call only asks for a pause: replay goes on until the startup process sees it. Wait for that, or what the
        // primary writes next may still be replayed (the read-replica e2e saw it once).
        await query('SELECT pg_wal_replay_pause()');
        await waitFor(
          async () =>
            (await query<{ state: string }>('SELECT pg_get_wal_replay_pause_state() AS state'))[0].state === 'paused',
          { timeoutMs: 10_000, what: 'the replica to pause its replay' },
        );
      },
      resumeReplay: async () => {
        await query('SELECT pg_wal_replay_resume()');
      },
      caughtUp: async (timeoutMs = 30_000) => {
        const writer = new pg.Client({ connectionString: primaryUrl });
        await writer.connect();
        const [{ lsn }] = (await writer.query('SELECT pg_current_wal_lsn()::text AS lsn').finally(() => writer.end()))
          .rows;
        await waitFor(
          async () =>
            (await query<{ done: boolean }>('SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS done', [lsn]))[0].done,
          { timeoutMs, intervalMs: 50, what: `the replica to replay the primary's WAL up to ${lsn}` },
        );
      },
      stop: async () => {
        await pgCtl('-m', 'fast', '-w', 'stop');
      },
      start,
      destroy: async () => {
        if (!destroyed && pidOf()) await pgCtl('-m', 'immediate', '-w', 'stop').catch(() => undefined);
        destroyNow();
        process.removeListener('exit', destroyNow);
      },
    };
  } catch (error) {
    destroyNow();
    process.removeListener('exit', destroyNow);
    throw error;
  }
}
