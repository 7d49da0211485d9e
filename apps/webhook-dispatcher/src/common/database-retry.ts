import { Injectable, Logger } from '@nestjs/common';
import { isTransientDatabaseError } from '#persistence';

const FIRST_DELAY_MS = 100;
const MAX_DELAY_MS = 5_000;

/**
 * Waits out database outages for the dispatcher's data access. A message's work must not fail because PostgreSQL
 * restarted: a failed event would be redelivered at once and parked after the broker's delivery limit (never
 * fanned out), and a delivery whose POST was made but not logged would be attempted again (a duplicate POST and a
 * second chain of repeats). So a step that fails transiently ({@link isTransientDatabaseError}) is repeated, with
 * backoff up to 5 s, while the process runs; the message stays unacked meanwhile, which also stops new work from
 * being taken once the prefetch is used up. Other failures are thrown at once. One warning per outage, one line
 * when it is over. {@link stop} (DispatcherLifecycle calls it when the shutdown's grace period is over) makes
 * waiting steps give up, and their messages go back to the broker.
 */
@Injectable()
export class DatabaseRetry {
  private readonly logger = new Logger('Database');
  private stopped = false;
  private outage = false;
  private readonly sleepers = new Set<() => void>();

  async run<T>(step: () => Promise<T>): Promise<T> {
    return (await this.runNoting(step)).result;
  }

  /** As {@link run}, and whether the step had to wait out an outage (other work may still be waiting too). */
  async runNoting<T>(step: () => Promise<T>): Promise<{ result: T; waited: boolean }> {
    for (let delay = FIRST_DELAY_MS, waited = false; ; delay = Math.min(delay * 2, MAX_DELAY_MS), waited = true) {
      try {
        const result = await step();
        if (this.outage) {
          this.outage = false;
          this.logger.log('the database answers again; waiting work goes on');
        }
        return { result, waited };
      } catch (error) {
        if (this.stopped || !isTransientDatabaseError(error)) throw error;
        if (!this.outage) {
          this.outage = true;
          this.logger.warn(`database unavailable (${(error as Error).message}); work waits and is retried`);
        }
        await this.sleep(delay);
        if (this.stopped) throw error;
      }
    }
  }

  /** From now on failures are not repeated, and steps waiting to be repeated fail with their last error. */
  stop(): void {
    this.stopped = true;
    for (const wake of this.sleepers) wake();
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.sleepers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.sleepers.add(wake);
    });
  }
}
