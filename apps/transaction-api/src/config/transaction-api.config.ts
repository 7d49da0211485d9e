import { BaseConfig, readBaseConfig } from '#platform';

export const DEV_PLATFORM_TOKEN = 'development-platform-token';

/** transaction-api settings (CONTRACT §1), read and validated once at start. */
export class TransactionApiConfig {
  constructor(
    readonly base: BaseConfig,
    readonly port: number,
    /** Bearer token of the platform (internal) API. */
    readonly platformToken: string,
  ) {}
}

export function loadTransactionApiConfig(env: NodeJS.ProcessEnv): TransactionApiConfig {
  const { reader, base } = readBaseConfig(env);
  const config = new TransactionApiConfig(
    base,
    reader.port('TRANSACTION_API_PORT', 3000),
    reader.secret('PLATFORM_TOKEN', { devDefault: DEV_PLATFORM_TOKEN, minLength: 16 }),
  );
  reader.done();
  return config;
}
