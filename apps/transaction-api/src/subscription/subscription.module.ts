import { Module } from '@nestjs/common';
import { MerchantModule } from '../merchant/merchant.module.js';
import { OutboxModule } from '../outbox/outbox.module.js';
import { SubscriptionController } from './subscription.controller.js';
import { SubscriptionRepository } from './subscription.repository.js';
import { SubscriptionService } from './subscription.service.js';

@Module({
  imports: [MerchantModule, OutboxModule],
  controllers: [SubscriptionController],
  providers: [SubscriptionRepository, SubscriptionService],
})
export class SubscriptionModule {}
