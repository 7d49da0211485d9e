import { DEFAULT_AMQP_URL } from '#messaging';
import { DEFAULT_DATABASE_URL } from '#persistence';
import { EnvReader } from './env.reader.js';

export const NODE_ENVS = ['development', 'test', 'production'] as const;
export type NodeEnv = (typeof NODE_ENVS)[number];

/** Settings every app shares (CONTRACT §1). */
export interface BaseConfig {
  nodeEnv: NodeEnv;
  /** development and test allow the documented development defaults; production requires every secret. */
  isDevelopment: boolean;
  databaseUrl: string;
  amqpUrl: string;
  logLevel: 'debug' | 'info' | 'warn' | 'error';
}

/** Creates the reader for one app and reads the shared part of its configuration. */
export function readBaseConfig(env: NodeJS.ProcessEnv): { reader: EnvReader; base: BaseConfig } {
  const probe = new EnvReader(env, false);
  const nodeEnv = probe.oneOf('NODE_ENV', NODE_ENVS, 'production');
  probe.done();
  const isDevelopment = nodeEnv !== 'production';
  const reader = new EnvReader(env, isDevelopment);
  const base: BaseConfig = {
    nodeEnv,
    isDevelopment,
    databaseUrl: reader.url('DATABASE_URL', ['postgres:', 'postgresql:'], { default: DEFAULT_DATABASE_URL }),
    amqpUrl: reader.url('AMQP_URL', ['amqp:', 'amqps:'], { default: DEFAULT_AMQP_URL }),
    logLevel: reader.oneOf('LOG_LEVEL', ['debug', 'info', 'warn', 'error'] as const, 'info'),
  };
  return { reader, base };
}
