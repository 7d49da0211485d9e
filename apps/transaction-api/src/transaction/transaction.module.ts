import { Module } from '@nestjs/common';
import { MerchantModule } from '../merchant/merchant.module.js';
import { OutboxModule } from '../outbox/outbox.module.js';
import { TransactionLatestController } from './transaction-latest.controller.js';
import { TransactionMerchantController } from './transaction-merchant.controller.js';
import { TransactionPlatformController } from './transaction-platform.controller.js';
import { TransactionReader } from './transaction.reader.js';
import { TransactionRepository } from './transaction.repository.js';
import { TransactionService } from './transaction.service.js';

@Module({
  imports: [MerchantModule, OutboxModule],
  controllers: [TransactionPlatformController, TransactionMerchantController, TransactionLatestController],
  providers: [TransactionRepository, TransactionService, TransactionReader],
})
export class TransactionModule {}
