import { DynamicModule, Module } from '@nestjs/common';
import { TRANSACTION_API_DATABASE } from '#persistence';
import { AppConfigModule, PlatformModule, PlatformTokenSource } from '#platform';
import { PgPoolModule } from './common/pg-pool.js';
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
          database: TRANSACTION_API_DATABASE,
          base: config.base,
          // TypeORM's data source serves only the readiness check here: every query runs on PG_POOL.
          entities: [],
          poolSize: 1,
        }),
        PgPoolModule,
        MerchantModule,
        TransactionModule,
        SubscriptionModule,
        PayoutModule,
      ],
    };
  }
}
