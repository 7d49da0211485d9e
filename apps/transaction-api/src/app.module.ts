import { DynamicModule, Module } from '@nestjs/common';
import { MerchantEntity, IntegrationEntity } from '#persistence';
import { PlatformModule } from '#platform';
import { TransactionApiConfig } from './config/transaction-api.config.js';

@Module({})
export class AppModule {
  static forRoot(config: TransactionApiConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        PlatformModule.forRoot({
          name: 'transaction-api',
          base: config.base,
          entities: [MerchantEntity, IntegrationEntity],
        }),
      ],
      providers: [{ provide: TransactionApiConfig, useValue: config }],
    };
  }
}
