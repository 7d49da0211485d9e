import { Logger, type INestApplication } from '@nestjs/common';
import { ConfigError } from './config/env.reader.js';

/**
 * Process entry point shared by the apps: reads the configuration (a bad one stops the process with a
 * message naming each variable, never a value), creates the app and listens (Fastify logs where).
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
    // Before the configuration is read there is no logger (LOG_FORMAT may be what is wrong): a plain message.
    if (!(error instanceof ConfigError)) throw error;
    console.error(`${name}: cannot start. ${error.message}`);
    process.exit(1);
  }
  try {
    const app = await createApp(config);
    await app.listen(config.port, '0.0.0.0');
  } catch (error) {
    // A check at start (e.g. a key that opens no stored secret) ends the process with one line per problem, through
    // the app's logger; anything else is thrown as it is.
    if (!(error instanceof ConfigError)) throw error;
    Logger.fatal(`cannot start. ${error.message}`);
    process.exit(1);
  }
}
