import { describe, expect, it } from '@jest/globals';
import { WebhookSlots } from './webhook-slots.js';

type SlotOptions = ConstructorParameters<typeof WebhookSlots>[0];
/** Slots with cap 1, slowMs and stickyMs 1 s, slowForMs 30 s and room for 100 waiters, unless overridden. */
const slotsWith = (options: Partial<SlotOptions>, now?: () => number) =>
  new WebhookSlots({ cap: 1, slowMs: 1_000, slowForMs: 30_000, stickyMs: 1_000, maxWaiters: 100, ...options }, now);

describe('WebhookSlots', () => {
  it('runs up to the cap at once, then queues and hands freed slots over in order', async () => {
    const slots = slotsWith({ cap: 2 });
    const a = (await slots.acquire('w'))!;
    const b = (await slots.acquire('w'))!;
    expect(slots.running('w')).toBe(2);
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

  it('releasing twice frees one slot only, and an idle webhook is forgotten', async () => {
    const slots = slotsWith({});
    const release = (await slots.acquire('w'))!;
    release();
    release();
    expect(slots.running('w')).toBe(0);
    expect(await slots.acquire('w')).toBeInstanceOf(Function);
  });

  it('stays slow for slowForMs after an attempt that took longer than stickyMs, then recovers', async () => {
    let now = 0;
    const slots = slotsWith({ cap: 4 }, () => now);
    const release = slots.track('w');
    now = 2_000;
    release();
    expect(slots.isSlowWebhook('w')).toBe(true);
    expect(await slots.acquire('w')).toBeUndefined();
    now = 32_001;
    expect(slots.isSlowWebhook('w')).toBe(false);
    expect(await slots.acquire('w')).toBeInstanceOf(Function);
  });

  it('tracks slow-lane attempts without a cap', () => {
    const slots = slotsWith({});
    for (let i = 0; i < 5; i += 1) slots.track('w');
    expect(slots.running('w')).toBe(5);
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
    expect(slots.isSlowWebhook('w')).toBe(true); // while it runs
    release();
    expect(slots.isSlowWebhook('w')).toBe(false);
    expect(await slots.acquire('w')).toBeInstanceOf(Function);
  });
});
