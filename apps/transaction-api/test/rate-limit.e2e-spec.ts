import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import { TransactionApiHarness, type Reply } from './harness.js';

const LIMIT = 50;

/** A 429 as the rate limit answers it: a problem with a whole number of seconds ≥ 1 in Retry-After. */
function expectRateLimited(reply: Reply): void {
  expect(reply.status).toBe(429);
  expect(reply.contentType).toContain('application/problem+json');
  expect(reply.body).toMatchObject({ type: 'urn:problem:rate-limited', status: 429 });
  expect(reply.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
}

describe('rate limit of the merchant API, over two processes (e2e over HTTP)', () => {
  let a: TransactionApiHarness;
  let b: TransactionApiHarness;

  beforeAll(async () => {
    // Two app instances on one database and one broker vhost, as two processes of one deployment.
    a = await TransactionApiHarness.start({ API_RATE_LIMIT: String(LIMIT) });
    b = await TransactionApiHarness.start({ API_RATE_LIMIT: String(LIMIT) });
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
  });

  it('accepts API_RATE_LIMIT requests per second for one key, summed over both instances, and refuses the rest', async () => {
    const hammered = await a.merchantWithKey('Busy');
    const other = await a.merchantWithKey('Calm');
    const seconds = 5;
    const perSecond = 4 * LIMIT;
    const accepted = new Array<number>(seconds).fill(0);
    const refusals: Reply[] = [];
    const others: Promise<Reply>[] = [];
    const pending: Promise<void>[] = [];
    const start = performance.now();
    for (let i = 0; i < seconds * perSecond; i += 1) {
      const due = start + (i * 1_000) / perSecond;
      const wait = due - performance.now();
      if (wait > 1) await sleep(wait);
      const second = Math.floor((performance.now() - start) / 1_000);
      const api = i % 2 === 0 ? a : b;
      pending.push(
        api.merchant(hammered.apiKey, '/v1.17/transactions?limit=1').then((reply) => {
          if (reply.status === 200) accepted[Math.min(second, seconds - 1)] += 1;
          else refusals.push(reply);
        }),
      );
      // Another key, at 4 requests per second through either instance, meanwhile.
      if (i % (perSecond / 4) === 0) others.push(api.merchant(other.apiKey, '/v1.17/transactions?limit=1'));
    }
    await Promise.all(pending);

    // The first second may overshoot while the instances first hear of each other's counts; from then on, the sum
    // holds within 20 %. Each second is counted by when its requests were sent; on a loaded host a request may be
    // admitted a moment later, in the server's next second, so single seconds get some more room.
    const steady = accepted.slice(1);
    const average = steady.reduce((x, y) => x + y) / steady.length;
    const within = (count: number, share: number) => Math.abs(count - LIMIT) <= LIMIT * share;
    // (The counts are in the object compared, so that a failure shows them.)
    expect({
      accepted,
      average: within(average, 0.2),
      eachSecond: steady.every((count) => within(count, 0.4)),
    }).toEqual({
      accepted,
      average: true,
      eachSecond: true,
    });
    for (const refusal of refusals) expectRateLimited(refusal);
    expect((await Promise.all(others)).map((reply) => reply.status)).toEqual(new Array(others.length).fill(200));
  }, 30_000);

  it('limits wrong keys per client address the same way, before looking them up; known keys still pass', async () => {
    const known = await a.merchantWithKey('Known');
    expect((await a.merchant(known.apiKey, '/v1.0/transactions')).status).toBe(200);
    await sleep(1_100); // nothing left in the window from the test before

    const wrong = 'pk_' + 'x'.repeat(43);
    const replies = await Promise.all(
      Array.from({ length: 3 * LIMIT }, (_, i) => (i % 2 === 0 ? a : b).merchant(wrong, '/v1.0/transactions')),
    );
    const unauthorized = replies.filter((reply) => reply.status === 401).length;
    expect(unauthorized).toBeGreaterThanOrEqual(LIMIT * 0.8);
    expect(unauthorized).toBeLessThanOrEqual(LIMIT * 1.2 * 2); // at once, before either instance heard of the other
    for (const reply of replies.filter((r) => r.status !== 401)) expectRateLimited(reply);
    expectRateLimited(await a.merchant(wrong, '/v1.0/transactions'));
    expectRateLimited(await b.request('GET', '/v1.0/transactions'));

    // A key already known to the instance is not held back by its address's wrong keys.
    expect((await a.merchant(known.apiKey, '/v1.0/transactions')).status).toBe(200);
    // Nor is anything but the merchant API.
    expect((await b.request('GET', '/health/live')).status).toBe(200);

    // Once the window has passed (the other instance's counts arrive up to a bucket or two late), the address is
    // answered again: 401 for the wrong key.
    let status = 429;
    for (let tries = 0; tries < 30 && status === 429; tries += 1) {
      await sleep(100);
      status = (await a.merchant(wrong, '/v1.0/transactions')).status;
    }
    expect(status).toBe(401);
  }, 30_000);
});
