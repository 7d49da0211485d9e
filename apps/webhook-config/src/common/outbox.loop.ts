/** The wait before the next try of an outbox row whose `attempts`-th try failed: 1 s, doubling, at most `maxMs`. */
export function retryDelayMs(attempts: number, maxMs: number): number {
  return Math.min(maxMs, 1_000 * 2 ** Math.min(30, Math.max(0, attempts - 1)));
}

/**
 * The loop of an outbox worker (the notice e-mails, the operational events): calls `step` — it claims the due rows,
 * handles them and returns how many it claimed — until stopped. After a step that claimed fewer than `batch` rows (or
 * threw: `onError` hears of it) it sleeps `pollMs` (another process may write the outbox), unless nudged meanwhile.
 */
export class OutboxLoop {
  private running = false;
  private stopping = false;
  private wake?: () => void;
  private nudged = false;
  private loop?: Promise<void>;

  constructor(
    private readonly step: () => Promise<number>,
    private readonly options: { batch: number; onError: (error: Error) => void; pollMs?: number },
  ) {}

  /** Once stopping, a step leaves the rows it has not handled yet to their lease. */
  get isStopping(): boolean {
    return this.stopping;
  }

  start(): void {
    this.running = true;
    this.loop = this.run();
  }

  /** Looks at the outbox now (a row was just written). */
  nudge(): void {
    this.nudged = true;
    this.wake?.();
  }

  /** Stops after the step in progress. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.running = false;
    this.wake?.();
    await this.loop;
  }

  private async run(): Promise<void> {
    while (this.running) {
      let claimed = 0;
      try {
        claimed = await this.step();
      } catch (error) {
        this.options.onError(error as Error);
      }
      // A full batch: more may be due at once.
      if (claimed < this.options.batch) await this.pause();
    }
  }

  private async pause(): Promise<void> {
    if (this.nudged || !this.running) {
      this.nudged = false;
      return;
    }
    let timer: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve) => {
      this.wake = resolve;
      timer = setTimeout(resolve, this.options.pollMs ?? 1_000);
    });
    clearTimeout(timer);
    this.wake = undefined;
    this.nudged = false;
  }
}
