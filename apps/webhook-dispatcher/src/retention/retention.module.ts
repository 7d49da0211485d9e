import { Module } from '@nestjs/common';
import { DeliveryModule } from '../delivery/delivery.module.js';
import { WebhookHealthModule } from '../webhook-health/webhook-health.module.js';
import { PartitionMaintenanceJob } from './partition-maintenance.job.js';
import { PartitionMaintenanceMetrics } from './partition-maintenance.metrics.js';
import { PartitionMaintenance } from './partition-maintenance.service.js';

/**
 * The day partitions of the deliveries and the log: created ahead, dropped after WEBHOOK_LOG_RETENTION; and, through
 * their owners' repositories, the rows the health and the superseded repeats keep beside them.
 */
@Module({
  imports: [DeliveryModule, WebhookHealthModule],
  providers: [PartitionMaintenanceMetrics, PartitionMaintenance, PartitionMaintenanceJob],
})
export class RetentionModule {}
