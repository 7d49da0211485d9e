import type { INestApplication } from '@nestjs/common';
import { ConfigError } from './config/env.reader.js';

/**
 * Process entry point shared by the apps: reads the configuration (a bad one stops the process with a
 * message naming each variable, never a value), creates the app and listens.
 */
export async function runApp<TConfig extends { port: number }>(
  name: string,
  loadConfig: (env: NodeJS.ProcessEnv) => TConfig,
  createApp: (config: TConfig) => Promise<INestApplication>,
): Promise<void> {
  try {
    const config = loadConfig(process.env);
    const app = await createApp(config);
    await app.listen(config.port, '0.0.0.0');
    console.log(`${name}: listening on http://127.0.0.1:${config.port}`);
  } catch (error) {
    // A ConfigError, from the environment or from a check at start (e.g. a key that opens no stored secret), ends
    // the process with one line per problem; anything else is thrown as it is.
    if (!(error instanceof ConfigError)) throw error;
    console.error(`${name}: cannot start. ${error.message}`);
    process.exit(1);
  }
}
