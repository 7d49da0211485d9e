import { DynamicModule, Module } from '@nestjs/common';
import { IntegrationEntity, MerchantEntity } from '#persistence';
import { AppConfigModule, PlatformModule, PlatformTokenSource } from '#platform';
import { TransactionApiConfig } from './config/transaction-api.config.js';
import { MerchantModule } from './merchant/merchant.module.js';
import { PayoutModule } from './payout/payout.module.js';
import { SubscriptionModule } from './subscription/subscription.module.js';
import { TransactionModule } from './transaction/transaction.module.js';

@Module({})
export class AppModule {
  static forRoot(config: TransactionApiConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        AppConfigModule.forRoot(config, [TransactionApiConfig, PlatformTokenSource]),
        PlatformModule.forRoot({
          name: 'transaction-api',
          base: config.base,
          entities: [MerchantEntity, IntegrationEntity],
          poolSize: config.databasePoolSize,
        }),
        MerchantModule,
        TransactionModule,
        SubscriptionModule,
        PayoutModule,
      ],
    };
  }
}
