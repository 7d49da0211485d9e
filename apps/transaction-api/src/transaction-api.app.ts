import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createHttpApp } from '#platform';
import { AppModule } from './app.module.js';
import type { TransactionApiConfig } from './config/transaction-api.config.js';

/** Builds the transaction-api application (not listening yet): used by main.ts and by the e2e tests. */
export function createTransactionApiApp(config: TransactionApiConfig): Promise<NestFastifyApplication> {
  return createHttpApp(AppModule.forRoot(config), { name: 'transaction-api', logLevel: config.base.logLevel });
}
