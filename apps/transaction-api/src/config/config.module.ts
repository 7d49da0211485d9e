import { DynamicModule, Global, Module } from '@nestjs/common';
import { TransactionApiConfig } from './transaction-api.config.js';

/** Makes the app's configuration injectable everywhere. */
@Global()
@Module({})
export class ConfigModule {
  static forRoot(config: TransactionApiConfig): DynamicModule {
    return {
      module: ConfigModule,
      providers: [{ provide: TransactionApiConfig, useValue: config }],
      exports: [TransactionApiConfig],
    };
  }
}
