import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { SLOW_LANE_QUEUES, SLOW_LANE_SHARDS, slowLaneRoutingKey, slowLaneShard } from './topology.js';

describe('slow-lane shards', () => {
  it('puts a webhook in the same shard every time, whatever the process', () => {
    // Fixed expectations: a change of the hash would split a webhook's waiting deliveries across two queues.
    expect(slowLaneShard('00000000-0000-4000-8000-000000000000')).toBe(5);
    expect(slowLaneShard('11111111-1111-4111-8111-111111111111')).toBe(3);
    expect(slowLaneShard('2b7f0c1e-9d3a-4f6b-a2c4-5e8d1f0b3a7c')).toBe(7);
  });

  it('spreads webhooks over every shard', () => {
    const counts = new Array<number>(SLOW_LANE_SHARDS).fill(0);
    for (let i = 0; i < 8_000; i += 1) counts[slowLaneShard(randomUUID())] += 1;
    // 1,000 expected per shard; a fair hash stays within a few standard deviations (~30).
    for (const count of counts) expect(Math.abs(count - 1_000)).toBeLessThan(200);
  });

  it('keeps the unsplit slow lane as shard 0, so messages waiting there from before are still consumed', () => {
    expect(SLOW_LANE_QUEUES[0]).toBe('dispatcher.deliveries.slow');
    expect(slowLaneRoutingKey(0)).toBe('deliver-slow');
    expect(new Set(SLOW_LANE_QUEUES).size).toBe(SLOW_LANE_SHARDS);
  });
});
