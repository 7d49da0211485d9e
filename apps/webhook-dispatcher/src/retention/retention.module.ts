import { Module } from '@nestjs/common';
import { PartitionMaintenanceJob } from './partition-maintenance.job.js';
import { PartitionMaintenanceMetrics } from './partition-maintenance.metrics.js';
import { PartitionMaintenance } from './partition-maintenance.service.js';

/** The day partitions of the deliveries and the log: created ahead, dropped after WEBHOOK_LOG_RETENTION. */
@Module({
  providers: [PartitionMaintenanceMetrics, PartitionMaintenance, PartitionMaintenanceJob],
})
export class RetentionModule {}
