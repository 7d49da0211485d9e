import { afterAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { loadWebhookDispatcherConfig } from '../src/config/webhook-dispatcher.config.js';
import { createWebhookDispatcherApp } from '../src/webhook-dispatcher.app.js';
import { closeDb, createMerchant, createWebhook, dispatcherEnv, startDispatcher } from './dispatcher.harness.js';

/**
 * A dispatcher whose SECRET_ENCRYPTION_KEY is not webhook-config's could sign nothing: every message was retried
 * until the broker parked it, with nothing in the merchant's log. It now refuses to start, saying why.
 */
describe('SECRET_ENCRYPTION_KEY check at start (real PostgreSQL and RabbitMQ)', () => {
  afterAll(async () => {
    await closeDb();
  });

  it('refuses to start with a key that opens none of the webhook secrets, and starts with the right one', async () => {
    const { merchantId } = await createMerchant();
    await createWebhook({ merchantId, url: 'http://127.0.0.1:9/key-check' });

    const wrong = await createWebhookDispatcherApp(
      loadWebhookDispatcherConfig(dispatcherEnv({ SECRET_ENCRYPTION_KEY: randomBytes(32).toString('base64') })),
    );
    try {
      await expect(wrong.init()).rejects.toThrow(
        /^Invalid configuration:\n {2}- SECRET_ENCRYPTION_KEY decrypts none of the latest \d+ webhook secrets: it must be the key webhook-config/,
      );
    } finally {
      await wrong.close().catch(() => undefined);
    }

    const right = await startDispatcher();
    await right.close();
  });

  it('as a process: exits 1 with one line naming the variable, no stack and no key', async () => {
    const main = 'dist/apps/webhook-dispatcher/src/main.js';
    if (!existsSync(main)) throw new Error(`${main} is missing: the test target builds it first`);
    const { merchantId } = await createMerchant();
    await createWebhook({ merchantId, url: 'http://127.0.0.1:9/key-check' });
    const key = randomBytes(32).toString('base64');
    const child = spawn(process.execPath, [main], {
      env: dispatcherEnv({ SECRET_ENCRYPTION_KEY: key, WEBHOOK_DISPATCHER_PORT: '0', LOG_LEVEL: 'warn' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    for (const stream of [child.stdout!, child.stderr!]) stream.on('data', (chunk: Buffer) => (output += chunk));
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(code).toBe(1);
    expect(output).toMatch(
      /webhook-dispatcher: cannot start\. Invalid configuration:\n {2}- SECRET_ENCRYPTION_KEY decrypts none of the latest \d+ webhook secrets/,
    );
    expect(output).not.toMatch(/\n\s+at /); // no stack trace
    expect(output).not.toContain(key);
  });
});
