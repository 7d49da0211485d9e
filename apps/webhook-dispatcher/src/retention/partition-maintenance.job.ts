import { BeforeApplicationShutdown, Injectable, OnModuleInit } from '@nestjs/common';
import { PartitionMaintenance } from './partition-maintenance.service.js';

/** How often every dispatcher process tries a maintenance run (one of them runs it, the others skip). */
export const MAINTENANCE_EVERY_MS = 3_600_000;

/**
 * Runs the partition maintenance when the process starts — before it consumes anything, so that today's partitions
 * exist whatever happened while no dispatcher ran — and then every hour. A failed run is logged and counted
 * (PartitionMaintenanceMetrics) and tried again at the next; it never stops the process, which has DAYS_AHEAD days of
 * partitions to write to meanwhile (and an alert when they run low).
 */
@Injectable()
export class PartitionMaintenanceJob implements OnModuleInit, BeforeApplicationShutdown {
  private timer?: NodeJS.Timeout;
  private running?: Promise<unknown>;

  constructor(private readonly maintenance: PartitionMaintenance) {}

  async onModuleInit(): Promise<void> {
    await this.tick();
    this.timer = setInterval(() => void this.tick(), MAINTENANCE_EVERY_MS);
    this.timer.unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  private tick(): Promise<unknown> {
    // A run still going (a long drop) is not overlapped by the next.
    this.running ??= this.maintenance
      .run()
      .catch(() => undefined) // counted and logged by the run
      .finally(() => (this.running = undefined));
    return this.running;
  }
}
