/**
 * Collects items submitted within `lingerMs` (or until `maxBatch`) and processes them together, with at most
 * `concurrency` batches in flight. `submit` resolves with the item's own result once its batch is done, or
 * rejects with the batch's error, so callers keep their one-item logic (e.g. ack after the write).
 *
 * With `lingerMs: 0` a batch starts at the end of the event-loop turn its first item came in (no timer, so no wait
 * and no extra wake-up): it holds what that turn submitted, and items that arrive while `concurrency` batches are
 * in flight wait and leave together in the next one — batches grow with the load by themselves.
 */
export class Batcher<TItem, TResult> {
  private queue: Array<{ item: TItem; resolve: (result: TResult) => void; reject: (error: unknown) => void }> = [];
  private timer: NodeJS.Timeout | NodeJS.Immediate | undefined;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly options: { maxBatch: number; lingerMs: number; concurrency: number },
    /** Processes one batch; returns one result per item, in order. */
    private readonly process: (items: TItem[]) => Promise<TResult[]>,
  ) {}

  submit(item: TItem): Promise<TResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (this.queue.length >= this.options.maxBatch) this.flush();
      else if (this.options.lingerMs === 0) this.timer ??= setImmediate(() => this.flush());
      else this.timer ??= setTimeout(() => this.flush(), this.options.lingerMs);
    });
  }

  /** Resolves once everything submitted so far is processed. */
  async drain(): Promise<void> {
    while (this.queue.length > 0 || this.inFlight.size > 0) {
      this.flush();
      await Promise.allSettled([...this.inFlight]);
    }
  }

  private flush(): void {
    if (this.options.lingerMs === 0) clearImmediate(this.timer as NodeJS.Immediate | undefined);
    else clearTimeout(this.timer as NodeJS.Timeout | undefined);
    this.timer = undefined;
    if (this.inFlight.size >= this.options.concurrency || this.queue.length === 0) return;
    const batch = this.queue.splice(0, this.options.maxBatch);
    const run = this.process(batch.map((entry) => entry.item)).then(
      (results) => batch.forEach((entry, i) => entry.resolve(results[i])),
      (error: unknown) => batch.forEach((entry) => entry.reject(error)),
    );
    this.inFlight.add(run);
    void run.finally(() => {
      this.inFlight.delete(run);
      if (this.queue.length > 0) this.flush();
    });
  }
}
