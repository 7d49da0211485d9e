import { Logger } from '@nestjs/common';

/**
 * A value a metric reads at scrape time (from the database, from the broker), within a time limit: a failure or a
 * late answer must not fail the scrape of every other metric. It is logged once, and so is the recovery, not on
 * every scrape while the source is away.
 */
export class ScrapeRead {
  private readonly logger = new Logger('Metrics');
  private failing = false;

  constructor(
    /** What is read, for the log: "the outbox backlog". */
    private readonly what: string,
    private readonly timeoutMs = 2_000,
  ) {}

  /** The value, or undefined when `read` failed or did not finish in time (it may still finish: it is not cancelled). */
  async read<T>(read: () => Promise<T>): Promise<T | undefined> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${this.timeoutMs} ms`)), this.timeoutMs);
    });
    try {
      const value = await Promise.race([read(), late]);
      if (this.failing) this.logger.log(`${this.what} is readable again`);
      this.failing = false;
      return value;
    } catch (error) {
      if (!this.failing) this.logger.warn(`cannot read ${this.what} (reported as NaN): ${(error as Error).message}`);
      this.failing = true;
      return undefined;
    } finally {
      clearTimeout(timer);
    }
  }
}
