import { describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freePort } from './ports.js';
import { testEnv } from './test-env.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * Runs `npm start`'s script until it prints `until` (then stops it) or exits: its output and exit code. Its first step
 * checks that PostgreSQL and RabbitMQ answer; that is what these tests are about.
 */
function startScript(env: Record<string, string>, until: string): Promise<{ output: string; code: number | null }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['scripts/start.js'], {
      cwd: ROOT,
      env: { ...process.env, ...env, FORCE_COLOR: '0' },
      detached: true,
    });
    let output = '';
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes(until)) process.kill(-child.pid!, 'SIGKILL');
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.on('exit', (code) => resolve({ output, code }));
  });
}

describe('npm start with AMQP_URL listing the nodes of a RabbitMQ cluster', () => {
  const amqpUrl = new URL(testEnv().amqpUrl);
  const node = (port: number) => `amqp://guest:guest@127.0.0.1:${port}`;

  it('starts when any node answers, not only the first', async () => {
    const down = await freePort();
    const up = `${node(Number(amqpUrl.port || 5672))}`;
    const { output } = await startScript(
      { AMQP_URL: `${node(down)},${up}`, DATABASE_URL: testEnv().databaseUrl },
      'building',
    );
    expect(output).not.toContain('RabbitMQ does not answer');
    expect(output).toContain('building');
  });

  it('stops, naming every node, when none answers', async () => {
    const [a, b] = [await freePort(), await freePort()];
    const { output, code } = await startScript(
      { AMQP_URL: `${node(a)}, ${node(b)}`, DATABASE_URL: testEnv().databaseUrl },
      'run npm start again',
    );
    expect(output).toContain(`RabbitMQ does not answer at any of 127.0.0.1:${a}, 127.0.0.1:${b} (AMQP_URL)`);
    expect(code === 1 || code === null).toBe(true);
  });
});
