import { Module } from '@nestjs/common';
import { MerchantModule } from '../merchant/merchant.module.js';
import { OutboxModule } from '../outbox/outbox.module.js';
import { PayoutController } from './payout.controller.js';
import { PayoutRepository } from './payout.repository.js';
import { PayoutService } from './payout.service.js';

@Module({
  imports: [MerchantModule, OutboxModule],
  controllers: [PayoutController],
  providers: [PayoutRepository, PayoutService],
})
export class PayoutModule {}
