import { Module } from '@nestjs/common';
import { CommonModule } from '../common/common.module.js';
import { DeliveryQueueModule } from '../delivery/delivery-queue.module.js';
import { MetricsModule } from '../metrics/metrics.module.js';
import { WebhookModule } from '../webhook/webhook.module.js';
import { RecoverStates } from './recover-state.cache.js';
import { RecoverJob } from './recover.job.js';
import { RecoverRepository } from './recover.repository.js';
import { RecoverService } from './recover.service.js';

/**
 * Recovers (delivery.webhook_recover, webhook_recover_sent): started and cancelled by the commands (RecoverService),
 * sent by the job. Exports the repository (the log writer adds the sent counts in its transaction) and the states
 * (the gate drops the attempts of a cancelled recover).
 */
@Module({
  imports: [CommonModule, MetricsModule, WebhookModule, DeliveryQueueModule],
  providers: [RecoverRepository, RecoverStates, RecoverService, RecoverJob],
  exports: [RecoverRepository, RecoverStates, RecoverService],
})
export class RecoverModule {}
