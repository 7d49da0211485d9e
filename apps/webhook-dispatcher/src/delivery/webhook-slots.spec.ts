import { describe, expect, it } from '@jest/globals';
import { WebhookSlots } from './webhook-slots.js';

type SlotOptions = ConstructorParameters<typeof WebhookSlots>[0];
/** Slots with cap 1, slowMs and stickyMs 1 s, slowForMs 30 s and room for 100 waiters, unless overridden. */
const slotsWith = (options: Partial<SlotOptions>, now?: () => number) =>
  new WebhookSlots({ cap: 1, slowMs: 1_000, slowForMs: 30_000, stickyMs: 1_000, maxWaiters: 100, ...options }, now);

/** Whether `promise` settles before the timers run, i.e. without waiting for a slot. */
const resolvesAtOnce = (promise: Promise<unknown>): Promise<boolean> =>
  Promise.race([promise.then(() => true), new Promise<boolean>((resolve) => setImmediate(() => resolve(false)))]);

describe('WebhookSlots', () => {
  it('runs up to the cap at once, then queues and hands freed slots over in order', async () => {
    const slots = slotsWith({ cap: 2 });
    const a = (await slots.acquire('w'))!;
    const b = (await slots.acquire('w'))!;
    const order: string[] = [];
    const c = slots.acquire('w').then((release) => (order.push('c'), release));
    const d = slots.acquire('w').then((release) => (order.push('d'), release));
    await Promise.resolve();
    expect(order).toEqual([]);
    a();
    (await c)!();
    b();
    await d;
    expect(order).toEqual(['c', 'd']);
  });

  it('does not let one webhook’s queue hold up another webhook', async () => {
    const slots = slotsWith({});
    await slots.acquire('busy');
    void slots.acquire('busy');
    expect(await slots.acquire('other')).toBeInstanceOf(Function);
  });

  it('sends to the slow lane while the webhook’s oldest running attempt is older than slowMs', async () => {
    let now = 0;
    const slots = slotsWith({}, () => now);
    await slots.acquire('hang');
    now = 999;
    const waiting = slots.acquire('hang'); // not slow yet: waits
    now = 1_001;
    expect(await slots.acquire('hang')).toBeUndefined(); // slow now: slow lane
    expect(waiting).toBeInstanceOf(Promise);
  });

  it('releasing twice frees one slot only', async () => {
    const slots = slotsWith({});
    const release = (await slots.acquire('w'))!;
    const second = slots.acquire('w');
    const third = slots.acquire('w');
    release();
    release();
    const next = (await second)!;
    expect(next).toBeInstanceOf(Function);
    expect(await resolvesAtOnce(third)).toBe(false); // the second release handed nothing over
    next();
    expect(await third).toBeInstanceOf(Function);
  });

  it('stays slow for slowForMs after an attempt that took longer than stickyMs, then recovers', async () => {
    let now = 0;
    const slots = slotsWith({ cap: 4 }, () => now);
    const release = slots.track('w');
    now = 2_000;
    release();
    expect(await slots.acquire('w')).toBeUndefined();
    now = 31_999;
    expect(await slots.acquire('w')).toBeUndefined();
    now = 32_001;
    expect(await slots.acquire('w')).toBeInstanceOf(Function);
  });

  it('tracks slow-lane attempts without a cap, and counts them against the cap of the delivery queue', async () => {
    const slots = slotsWith({});
    const releases = Array.from({ length: 5 }, () => slots.track('w'));
    expect(releases.every((release) => release instanceof Function)).toBe(true);
    const waiting = slots.acquire('w');
    expect(await resolvesAtOnce(waiting)).toBe(false); // the tracked attempts hold the one slot
    releases[0]!();
    expect(await waiting).toBeInstanceOf(Function);
  });

  it('a backlog sends new arrivals to the slow lane at once; the deliveries already waiting keep their place', async () => {
    const frozen = () => 0; // the running attempt never looks old: only the backlog rules apply
    const slots = slotsWith({ slowMs: 20, maxWaiters: 2 }, frozen);
    const release = (await slots.acquire('w'))!;
    const first = slots.acquire('w');
    const second = slots.acquire('w');
    expect(await slots.acquire('w')).toBeUndefined(); // a third would exceed maxWaiters for w
    await new Promise((resolve) => setTimeout(resolve, 50)); // the waiters keep waiting past slowMs
    release();
    const next = (await first)!;
    expect(next).toBeInstanceOf(Function);
    next();
    expect(await second).toBeInstanceOf(Function);
  });

  it('a busy webhook that is not slow keeps its waiters (the slow lane would queue them behind hanging webhooks)', async () => {
    const frozen = () => 0;
    const slots = slotsWith({ slowMs: 10, maxWaiters: 4 }, frozen);
    const release = (await slots.acquire('w'))!;
    const waiting = slots.acquire('w');
    await new Promise((resolve) => setTimeout(resolve, 60)); // several slowMs periods
    release();
    expect(await waiting).toBeInstanceOf(Function);
  });

  it('an attempt slower than slowMs but quicker than stickyMs leaves the webhook healthy once it ends', async () => {
    let now = 0;
    const slots = slotsWith({ cap: 4, stickyMs: 5_000, maxWaiters: 4 }, () => now);
    const release = (await slots.acquire('w'))!;
    now = 1_500;
    expect(await slots.acquire('w')).toBeUndefined(); // slow while it runs
    release();
    expect(await slots.acquire('w')).toBeInstanceOf(Function);
  });
});
