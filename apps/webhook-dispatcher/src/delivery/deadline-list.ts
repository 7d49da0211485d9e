/**
 * Deadlines that all last the same time, on one timer. Because every entry lasts `ms`, insertion order is deadline
 * order: a linked list with O(1) add and remove, and one timer for its head, replace a timer (and an AbortSignal)
 * per request — which at thousands of requests a second was a visible share of the dispatcher's CPU.
 */
export class DeadlineList {
  private head?: Deadline;
  private tail?: Deadline;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly ms: number,
    private readonly now: () => number = performance.now.bind(performance),
  ) {}

  /** Calls `expire` once `ms` have passed, unless the returned function is called first. */
  add(expire: () => void): () => void {
    const entry: Deadline = { at: this.now() + this.ms, expire, prev: this.tail, next: undefined, live: true };
    if (this.tail) this.tail.next = entry;
    else this.head = entry;
    this.tail = entry;
    if (!this.timer) this.schedule();
    return () => this.remove(entry);
  }

  private remove(entry: Deadline): void {
    if (!entry.live) return;
    entry.live = false;
    if (entry.prev) entry.prev.next = entry.next;
    else this.head = entry.next;
    if (entry.next) entry.next.prev = entry.prev;
    else this.tail = entry.prev;
    entry.prev = entry.next = undefined;
    // The timer stays: when it fires for a removed head it simply re-arms for the current one.
  }

  private schedule(): void {
    if (!this.head) return;
    this.timer = setTimeout(() => this.fire(), Math.max(0, this.head.at - this.now()));
    this.timer.unref();
  }

  private fire(): void {
    this.timer = undefined;
    const now = this.now();
    try {
      while (this.head && this.head.at <= now) {
        const entry = this.head;
        this.remove(entry);
        entry.expire();
      }
    } finally {
      if (!this.timer) this.schedule(); // an expire() that added an entry has scheduled already
    }
  }
}

interface Deadline {
  at: number;
  expire: () => void;
  prev: Deadline | undefined;
  next: Deadline | undefined;
  live: boolean;
}
