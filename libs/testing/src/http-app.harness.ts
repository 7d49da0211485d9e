import type { INestApplication } from '@nestjs/common';

/** Environment for an app under test: this run's database and broker, development mode. */
export function appTestEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    NODE_ENV: 'test',
    LOG_LEVEL: 'warn',
    DATABASE_URL: process.env.TEST_RUN_DATABASE_URL,
    AMQP_URL: process.env.TEST_RUN_AMQP_URL,
    // Closed at once after each test file; the shutdown e2e test drains a real process.
    SHUTDOWN_DRAIN_MS: '0',
    ...extra,
  };
}

/** Starts an app on a free loopback port and returns its base URL; call `app.close()` after. */
export async function listen(app: INestApplication): Promise<string> {
  await app.listen(0, '127.0.0.1');
  const address = app.getHttpServer().address() as { port: number };
  return `http://127.0.0.1:${address.port}`;
}
