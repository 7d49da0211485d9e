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
  let config: TConfig;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`${name}: cannot start. ${error.message}`);
      process.exit(1);
    }
    throw error;
  }
  const app = await createApp(config);
  await app.listen(config.port, '0.0.0.0');
  console.log(`${name}: listening on http://127.0.0.1:${config.port}`);
}
