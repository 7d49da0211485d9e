import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { freePort, waitFor } from '#testing';

/** The apps' built entry points (the test target builds them first) and the variable each takes its port from. */
const APPS = {
  'transaction-api': { main: 'dist/apps/transaction-api/src/main.js', portVariable: 'TRANSACTION_API_PORT' },
  'webhook-config': { main: 'dist/apps/webhook-config/src/main.js', portVariable: 'WEBHOOK_CONFIG_PORT' },
  'webhook-dispatcher': { main: 'dist/apps/webhook-dispatcher/src/main.js', portVariable: 'WEBHOOK_DISPATCHER_PORT' },
} as const;

export type AppName = keyof typeof APPS;

/** An app running as its own OS process. */
export interface AppProcess {
  name: string;
  child: ChildProcess;
  baseUrl: string;
  /** The end of what it printed (stdout and stderr). */
  output: () => string;
}

/** Starts an app (built output) on a free port with `env`, and resolves once its /health/ready answers 200. */
export async function startAppProcess(
  app: AppName,
  env: NodeJS.ProcessEnv,
  { name = app, readyTimeoutMs = 60_000, port: given }: { name?: string; readyTimeoutMs?: number; port?: number } = {},
): Promise<AppProcess> {
  const { main, portVariable } = APPS[app];
  if (!existsSync(main)) throw new Error(`${main} is missing: the test target builds it first (nx run ${app}:build)`);
  // `port`: the one it had before a restart (its clients keep their URL); else a free one.
  const port = given ?? (await freePort());
  const child = spawn(process.execPath, [main], {
    env: { ...env, [portVariable]: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  for (const stream of [child.stdout!, child.stderr!]) {
    stream.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-200_000)));
  }
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitFor(
    async () => {
      if (child.exitCode !== null) throw new Error(`${name} exited:\n${output.slice(-4_000)}`);
      return (await fetch(`${baseUrl}/health/ready`)).ok;
    },
    { timeoutMs: readyTimeoutMs, intervalMs: 200, what: `${name} to be ready` },
  ).catch((error: Error) => {
    child.kill('SIGKILL');
    throw new Error(`${error.message}\n${name}'s output:\n${output.slice(-4_000)}`);
  });
  return { name, child, baseUrl, output: () => output };
}

/** SIGTERM, and SIGKILL if it has not exited within 15 s. */
export async function stopAppProcess(app: AppProcess | undefined): Promise<void> {
  if (!app || app.child.exitCode !== null || app.child.signalCode !== null) return;
  const exited = new Promise((resolve) => app.child.once('exit', resolve));
  app.child.kill('SIGTERM');
  const timer = setTimeout(() => app.child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}
