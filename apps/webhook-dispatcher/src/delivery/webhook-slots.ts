/**
 * Per-webhook concurrency and health for one dispatcher process.
 *
 * In the delivery queue at most `cap` attempts per webhook run at once; more wait here for a slot. A webhook is
 * *slow* while its oldest running attempt is older than `slowMs`, and for `slowForMs` after an attempt took longer
 * than `stickyMs`. For a slow webhook `acquire` answers `undefined`: the caller moves the delivery to the slow lane,
 * which attempts without a per-webhook cap on a prefetch of its own. So a receiver that hangs never holds the slots
 * that healthy webhooks need.
 *
 * A webhook that is merely busy (fast attempts, all slots taken) is not sent there: the slow lane is first in,
 * first out behind whatever hanging webhooks piled up, so a healthy delivery moved there could wait minutes. Its
 * deliveries wait for a slot; only a backlog — `maxWaiters` waiting for it, which would otherwise hold up the other
 * webhooks' deliveries — sends new arrivals there at once. For the same reason `stickyMs`
 * is well above `slowMs`: when the whole machine stalls for a second, healthy webhooks must not be marked slow for
 * a minute.
 */
export class WebhookSlots {
  private readonly webhooks = new Map<string, WebhookState>();
  private nextToken = 0;

  constructor(
    private readonly options: {
      cap: number;
      slowMs: number;
      slowForMs: number;
      stickyMs: number;
      /** Waiters per webhook; more arrivals go to the slow lane at once. */
      maxWaiters: number;
    },
    private readonly now: () => number = Date.now,
  ) {}

  /** A release function once a slot is held, or undefined when the delivery belongs in the slow lane. */
  async acquire(webhookId: string): Promise<Release | undefined> {
    const state = this.state(webhookId);
    if (state.running.size < this.options.cap && state.waiters.length === 0 && !this.isSlow(state)) {
      return this.start(webhookId, state);
    }
    if (this.isSlow(state)) return undefined;
    // A backlog (maxWaiters already waiting for this webhook) goes to the slow lane at once; the
    // deliveries already waiting keep their place.
    if (state.waiters.length >= this.options.maxWaiters) return undefined;
    // Every slowMs without a slot: give up (slow lane) if the webhook turned slow, else wait on.
    const granted = await new Promise<boolean>((resolve) => {
      const waiter = () => {
        clearTimeout(timer);
        resolve(true);
      };
      const check = () => {
        if (!this.isSlow(state)) {
          timer = setTimeout(check, this.options.slowMs);
          return;
        }
        state.waiters.splice(state.waiters.indexOf(waiter), 1);
        resolve(false);
      };
      let timer = setTimeout(check, this.options.slowMs);
      state.waiters.push(waiter);
    });
    return granted ? this.start(webhookId, state) : undefined;
  }

  /** A slot in the slow lane: never refused, but counted, so the webhook's health stays known. */
  track(webhookId: string): Release {
    return this.start(webhookId, this.state(webhookId));
  }

  private state(webhookId: string): WebhookState {
    let state = this.webhooks.get(webhookId);
    if (!state) {
      state = { running: new Map(), waiters: [], slowUntil: 0 };
      this.webhooks.set(webhookId, state);
    }
    return state;
  }

  private start(webhookId: string, state: WebhookState): Release {
    const token = this.nextToken++;
    const startedAt = this.now();
    state.running.set(token, startedAt);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      state.running.delete(token);
      const ended = this.now();
      if (ended - startedAt > this.options.stickyMs) state.slowUntil = ended + this.options.slowForMs;
      const next = state.waiters.shift();
      if (next) next();
      else if (state.running.size === 0 && state.slowUntil <= ended) this.webhooks.delete(webhookId);
    };
  }

  private isSlow(state: WebhookState): boolean {
    const now = this.now();
    if (state.slowUntil > now) return true;
    const limit = now - this.options.slowMs;
    for (const startedAt of state.running.values()) if (startedAt < limit) return true;
    return false;
  }
}

type Release = () => void;

interface WebhookState {
  running: Map<number, number>;
  waiters: Array<() => void>;
  /** Slow until this time, because a recent attempt took longer than stickyMs. */
  slowUntil: number;
}
