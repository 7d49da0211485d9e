import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';

const FIRST_DELAY_MS = 100;
const MAX_DELAY_MS = 5_000;

/**
 * Failures that repeating cannot fix: bad data (SQLSTATE class 22), a violated constraint (23), an error in the
 * statement itself (42). Anything else — connection refused or lost, PostgreSQL shutting down or starting up, too
 * many connections, a database not accepting connections, a serialisation failure — may pass.
 */
export function isPermanentDatabaseError(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return typeof code === 'string' && /^(22|23|42)/.test(code);
}

/**
 * Waits out database outages for the dispatcher's data access. A message's work must not fail because PostgreSQL
 * restarted: a failed event would be redelivered at once and parked after the broker's delivery limit (never
 * fanned out), and a delivery whose POST was made but not logged would be attempted again (a duplicate POST and a
 * second chain of repeats). So a step that fails for a reason that may pass is repeated, with backoff up to 5 s,
 * while the process runs; the message stays unacked meanwhile, which also stops new work from being taken once the
 * prefetch is used up. Permanent failures ({@link isPermanentDatabaseError}) are thrown at once. One warning per
 * outage, one line when it is over. At shutdown waiting steps give up, and their messages go back to the broker.
 */
@Injectable()
export class DatabaseRetry implements OnApplicationShutdown {
  private readonly logger = new Logger('Database');
  private stopped = false;
  private outage = false;
  private readonly sleepers = new Set<() => void>();

  async run<T>(step: () => Promise<T>): Promise<T> {
    for (let delay = FIRST_DELAY_MS; ; delay = Math.min(delay * 2, MAX_DELAY_MS)) {
      try {
        const result = await step();
        if (this.outage) {
          this.outage = false;
          this.logger.log('the database answers again; waiting work goes on');
        }
        return result;
      } catch (error) {
        if (this.stopped || isPermanentDatabaseError(error)) throw error;
        if (!this.outage) {
          this.outage = true;
          this.logger.warn(`database unavailable (${(error as Error).message}); work waits and is retried`);
        }
        await this.sleep(delay);
      }
    }
  }

  /** Runs after every beforeApplicationShutdown hook (in-flight work has had its grace period). */
  onApplicationShutdown(): void {
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
