import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';

const FIRST_DELAY_MS = 100;
const MAX_DELAY_MS = 5_000;

/** SQLSTATEs that may pass: connection exceptions (08), insufficient resources (53), PostgreSQL shutting down or
 * starting (57P01–57P03), a database not accepting connections (55000), a lock not available (55P03), a read-only
 * server during a failover (25006), serialisation failures and deadlocks (40001, 40P01). */
const TRANSIENT_SQLSTATE = /^(08|53)|^(57P01|57P02|57P03|55000|55P03|25006|40001|40P01)$/;
/** Socket errors of a connection that could not be made or was lost. */
const TRANSIENT_SOCKET = /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|EHOSTUNREACH|ENETUNREACH|EAI_AGAIN)$/;
/** The pg driver's own messages for a lost or unobtainable connection (they carry no code). */
const TRANSIENT_MESSAGE = /Connection terminated|timeout exceeded when trying to connect|not queryable/i;

/**
 * Whether repeating may fix this database failure: the connection could not be made or was lost, PostgreSQL is
 * shutting down, starting up or out of connections, or the transaction lost a race. Anything else (bad data, a
 * constraint, an error in the statement, a bug) is not repeated: the caller fails as it always did.
 */
export function isTransientDatabaseError(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && (TRANSIENT_SQLSTATE.test(code) || TRANSIENT_SOCKET.test(code))) return true;
  return typeof message === 'string' && TRANSIENT_MESSAGE.test(message);
}

/**
 * Waits out database outages for the dispatcher's data access. A message's work must not fail because PostgreSQL
 * restarted: a failed event would be redelivered at once and parked after the broker's delivery limit (never
 * fanned out), and a delivery whose POST was made but not logged would be attempted again (a duplicate POST and a
 * second chain of repeats). So a step that fails transiently ({@link isTransientDatabaseError}) is repeated, with
 * backoff up to 5 s, while the process runs; the message stays unacked meanwhile, which also stops new work from
 * being taken once the prefetch is used up. Other failures are thrown at once. One warning per outage, one line
 * when it is over. {@link stop} (at the end of the graceful shutdown's grace period) makes waiting steps give up,
 * and their messages go back to the broker.
 */
@Injectable()
export class DatabaseRetry implements OnApplicationShutdown {
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

  /** A backstop: the dispatcher's lifecycle stops retries once the shutdown's grace period is over. */
  onApplicationShutdown(): void {
    this.stop();
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
