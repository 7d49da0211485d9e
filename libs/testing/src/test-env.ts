import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

/** This run's database and broker, provisioned by the global setup (see infrastructure.ts). */
export function testEnv(): { databaseUrl: string; amqpUrl: string } {
  const databaseUrl = process.env.TEST_RUN_DATABASE_URL;
  const amqpUrl = process.env.TEST_RUN_AMQP_URL;
  if (!databaseUrl || !amqpUrl) {
    throw new Error(
      "No test infrastructure: add `...infrastructure` from jest.preset.js to this project's jest config.",
    );
  }
  return { databaseUrl, amqpUrl };
}

/** rabbitmqctl on the local broker (restart tests run against the local or TEST_AMQP_URL broker only). */
export async function rabbitmqctl(...args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)('rabbitmqctl', args, { timeout: 120_000 });
  return stdout;
}

/** Polls `probe` until it returns a truthy value or the time is up. */
export async function waitFor<T>(
  probe: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  { timeoutMs = 10_000, intervalMs = 50, what = 'condition' } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${last}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
