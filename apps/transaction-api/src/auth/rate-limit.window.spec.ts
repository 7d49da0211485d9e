import { describe, expect, it } from '@jest/globals';
import { BUCKET_MS, OVERFLOW_ID, RateWindow } from './rate-limit.window.js';

const T0 = 1_000_000; // a bucket boundary

describe('RateWindow, one process', () => {
  it('admits `limit` requests in a second, then refuses until buckets leave the window', () => {
    const window = new RateWindow(5);
    for (let i = 0; i < 5; i += 1) expect(window.admit('key:a', T0 + i * 150)).toBe(true);
    expect(window.admit('key:a', T0 + 750)).toBe(false);
    expect(window.allows('key:a', T0 + 999)).toBe(false);
    // The bucket of the first request (T0…T0+99) left the window at T0+1000: room for one, not two.
    expect(window.admit('key:a', T0 + 1_000)).toBe(true);
    expect(window.admit('key:a', T0 + 1_001)).toBe(false);
    // All but the one just admitted have left by T0+1600.
    for (let i = 0; i < 4; i += 1) expect(window.admit('key:a', T0 + 1_600 + i)).toBe(true);
    expect(window.admit('key:a', T0 + 1_605)).toBe(false);
  });

  it('counts ids apart, and `allows` counts nothing', () => {
    const window = new RateWindow(2);
    expect(window.admit('key:a', T0)).toBe(true);
    expect(window.admit('key:a', T0)).toBe(true);
    expect(window.admit('key:a', T0)).toBe(false);
    for (let i = 0; i < 10; i += 1) expect(window.allows('key:b', T0)).toBe(true);
    expect(window.admit('key:b', T0)).toBe(true);
  });

  it('reports each ended bucket once, and forgets ids idle for a whole window', () => {
    const window = new RateWindow(100);
    const bucket = T0 / BUCKET_MS;
    window.admit('key:a', T0);
    window.admit('key:a', T0 + 150);
    expect(window.collect(bucket - 1, bucket)).toEqual(new Map([['key:a', [1, 1]]]));
    expect(window.collect(bucket, bucket + 1)).toEqual(new Map([['key:a', [1, 1]]]));
    expect(window.collect(bucket + 1, bucket + 2)).toEqual(new Map());
    expect(window.size).toBe(1);
    window.collect(bucket + 2, bucket + 11);
    expect(window.size).toBe(0);
  });

  it('sums the buckets a late collection missed, and counts refused attempts apart from accepted ones', () => {
    const window = new RateWindow(1);
    const bucket = T0 / BUCKET_MS;
    window.admit('ip:192.0.2.1', T0);
    window.admit('ip:192.0.2.1', T0 + 120);
    window.admit('ip:192.0.2.1', T0 + 250);
    expect(window.collect(bucket - 1, bucket + 2)).toEqual(new Map([['ip:192.0.2.1', [1, 3]]]));
  });

  it('keeps memory bounded: past the largest number of ids, new ids share one count', () => {
    const window = new RateWindow(3, 10);
    for (let i = 0; i < 10; i += 1) window.admit(`ip:192.0.2.${i}`, T0);
    for (let i = 10; i < 13; i += 1) expect(window.admit(`ip:192.0.2.${i}`, T0)).toBe(true);
    expect(window.admit('ip:192.0.2.99', T0)).toBe(false);
    expect(window.allows('ip:192.0.2.100', T0)).toBe(false);
    expect(window.size).toBe(11);
    expect(window.collect(T0 / BUCKET_MS - 1, T0 / BUCKET_MS).get(OVERFLOW_ID)).toEqual([3, 4]);
  });
});

/**
 * Processes sharing one id, each told the others' counts `lagMs` after every bucket ends (as over the exchange); the
 * requests of `perSecond` arrive evenly, to the processes in proportion to `weights`. Accepted per whole second.
 */
function simulate(options: {
  limit: number;
  weights: number[];
  perSecond: number;
  seconds: number;
  lagMs: number;
  exchange?: boolean;
}): number[] {
  const windows = options.weights.map(() => new RateWindow(options.limit));
  const published = windows.map(() => T0 / BUCKET_MS - 1);
  const inFlight: { at: number; to: number; accepted: number; attempted: number }[] = [];
  const accepted = new Array<number>(options.seconds).fill(0);
  const total = options.weights.reduce((a, b) => a + b, 0);
  const share = options.weights.map((weight) => weight / total);
  const sent = options.weights.map(() => 0);
  let next = 0;
  for (let t = T0; t < T0 + options.seconds * 1_000; t += 1) {
    if (t % BUCKET_MS === 0 && options.exchange !== false) {
      windows.forEach((window, from) => {
        const upTo = t / BUCKET_MS - 1;
        const counts = window.collect(published[from], upTo).get('key:a');
        published[from] = upTo;
        if (!counts) return;
        windows.forEach((_, to) => {
          if (to !== from) inFlight.push({ at: t + options.lagMs, to, accepted: counts[0], attempted: counts[1] });
        });
      });
    }
    for (const message of inFlight.filter(({ at }) => at === t)) {
      windows[message.to].addOthers('key:a', message.accepted, message.attempted, t);
    }
    while (T0 + (next * 1_000) / options.perSecond <= t) {
      // The process furthest behind its share of the requests so far gets this one.
      const process = share.reduce(
        (best, s, i) => (s * next - sent[i] > share[best] * next - sent[best] ? i : best),
        0,
      );
      sent[process] += 1;
      next += 1;
      if (windows[process].admit('key:a', t)) accepted[Math.floor((t - T0) / 1_000)] += 1;
    }
  }
  return accepted;
}

describe('RateWindow, several processes exchanging counts', () => {
  const steady = (perSecond: number[]) => perSecond.slice(1);

  it('holds the sum of two processes within 20 % of the limit at 4× the limit, evenly spread', () => {
    const accepted = simulate({ limit: 50, weights: [1, 1], perSecond: 200, seconds: 10, lagMs: 20 });
    for (const count of steady(accepted)) expect(Math.abs(count - 50)).toBeLessThanOrEqual(10);
  });

  it('holds it when the counts arrive 200 ms late and the load is 9:1 between the processes', () => {
    const accepted = simulate({ limit: 50, weights: [9, 1], perSecond: 200, seconds: 10, lagMs: 200 });
    for (const count of steady(accepted)) expect(Math.abs(count - 50)).toBeLessThanOrEqual(10);
  });

  it('holds it for three processes at 10× the limit', () => {
    const accepted = simulate({ limit: 100, weights: [1, 1, 1], perSecond: 1_000, seconds: 10, lagMs: 50 });
    for (const count of steady(accepted)) expect(Math.abs(count - 100)).toBeLessThanOrEqual(20);
  });

  it('admits everything under the limit, wherever it arrives', () => {
    const accepted = simulate({ limit: 100, weights: [3, 1], perSecond: 90, seconds: 5, lagMs: 100 });
    expect(accepted).toEqual([90, 90, 90, 90, 90]);
  });

  it('without the exchange (broker away) each process holds only its own count: twice the limit for two', () => {
    const accepted = simulate({ limit: 50, weights: [1, 1], perSecond: 200, seconds: 5, lagMs: 0, exchange: false });
    for (const count of steady(accepted)) expect(count).toBe(100);
  });
});
