import { describe, expect, it } from '@jest/globals';
import { Batcher } from './batcher.js';

describe('Batcher', () => {
  it('processes items submitted together as one batch and gives each its own result', async () => {
    const batches: number[][] = [];
    const batcher = new Batcher<number, number>({ maxBatch: 100, lingerMs: 5, concurrency: 1 }, async (items) => {
      batches.push(items);
      return items.map((n) => n * 2);
    });
    expect(await Promise.all([1, 2, 3].map((n) => batcher.submit(n)))).toEqual([2, 4, 6]);
    expect(batches).toEqual([[1, 2, 3]]);
  });

  it('splits at maxBatch and keeps at most `concurrency` batches in flight', async () => {
    let running = 0;
    let most = 0;
    const sizes: number[] = [];
    const batcher = new Batcher<number, number>({ maxBatch: 2, lingerMs: 1, concurrency: 2 }, async (items) => {
      running += 1;
      most = Math.max(most, running);
      sizes.push(items.length);
      await new Promise((resolve) => setTimeout(resolve, 5));
      running -= 1;
      return items;
    });
    await Promise.all([1, 2, 3, 4, 5, 6, 7].map((n) => batcher.submit(n)));
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(7);
    expect(Math.max(...sizes)).toBe(2);
    expect(most).toBe(2);
  });

  it('without linger: a batch per event-loop turn, and what arrives while the batches are busy leaves together', async () => {
    const batches: number[][] = [];
    let finishFirst = () => {};
    const batcher = new Batcher<number, number>({ maxBatch: 100, lingerMs: 0, concurrency: 1 }, async (items) => {
      batches.push(items);
      if (batches.length === 1) await new Promise<void>((resolve) => (finishFirst = resolve));
      return items;
    });
    const first = [batcher.submit(1), batcher.submit(2)];
    await new Promise((resolve) => setImmediate(resolve));
    expect(batches).toEqual([[1, 2]]); // started at the end of the turn, not after a timer
    // Submitted over several turns while the first batch runs: they wait, then go as one batch.
    const later: Array<Promise<number>> = [];
    for (const n of [3, 4, 5]) {
      later.push(batcher.submit(n));
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(batches).toHaveLength(1);
    finishFirst();
    expect(await Promise.all([...first, ...later])).toEqual([1, 2, 3, 4, 5]);
    expect(batches).toEqual([
      [1, 2],
      [3, 4, 5],
    ]);
  });

  it('rejects every item of a failed batch, and later batches still run', async () => {
    let fail = true;
    const batcher = new Batcher<string, string>({ maxBatch: 10, lingerMs: 1, concurrency: 1 }, async (items) => {
      if (fail) throw new Error('database down');
      return items;
    });
    const failed = [batcher.submit('a'), batcher.submit('b')];
    await expect(Promise.all(failed)).rejects.toThrow('database down');
    await Promise.allSettled(failed);
    fail = false;
    await expect(batcher.submit('c')).resolves.toBe('c');
  });

  it('drain waits for everything submitted', async () => {
    const done: number[] = [];
    const batcher = new Batcher<number, void>({ maxBatch: 10, lingerMs: 50, concurrency: 1 }, async (items) => {
      done.push(...items);
      return items.map(() => undefined);
    });
    void batcher.submit(1);
    void batcher.submit(2);
    await batcher.drain();
    expect(done).toEqual([1, 2]);
  });
});
