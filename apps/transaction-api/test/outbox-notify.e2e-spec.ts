import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { waitFor } from '#testing';
import { EventTap } from './event-tap.js';
import { TransactionApiHarness, transactionBody } from './harness.js';

/**
 * Two instances on one database: one relays, the other's writes wake it by NOTIFY. Both poll only every 10 s here,
 * so an event that arrives promptly was delivered by the wake-up, not by the poll.
 */
describe('outbox wake-ups across instances (e2e)', () => {
  let relaying: TransactionApiHarness;
  let other: TransactionApiHarness;
  let tap: EventTap;

  beforeAll(async () => {
    tap = await EventTap.open();
    relaying = await TransactionApiHarness.start({ OUTBOX_POLL_MS: '10000' });
    const relay = relaying.app.get((await import('../src/outbox/outbox.relay.js')).OutboxRelay);
    await waitFor(() => relay.isRelaying, { what: 'the first instance to take the relay lock' });
    other = await TransactionApiHarness.start({ OUTBOX_POLL_MS: '10000' });
  });
  afterAll(async () => {
    await other.close();
    await relaying.close();
    await tap.close();
  });

  it('publishes within a moment whichever instance wrote the event', async () => {
    const merchant = await other.merchantWithKey();
    for (const [name, api] of [
      ['other instance (NOTIFY)', other],
      ['relaying instance (in-process)', relaying],
    ] as const) {
      const started = Date.now();
      const created = await api.platform<{ uuid: string }>(
        'POST',
        '/internal/transactions',
        transactionBody(merchant.merchantId, null),
      );
      await tap.waitFor((event) => event.subjectId === created.body.uuid, 1, 5_000);
      expect([name, Date.now() - started < 2_000]).toEqual([name, true]);
    }
  });
});
