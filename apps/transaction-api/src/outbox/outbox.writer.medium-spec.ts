import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { testEnv, transactionEvent } from '#testing';
import pg from 'pg';
import { sqlOf } from '../common/sql.js';
import type { OutboxRelay } from './outbox.relay.js';
import { OUTBOX_CHANNEL } from './outbox.store.js';
import { OutboxWriter } from './outbox.writer.js';

/**
 * The outbox's half of "each change and its event in one transaction" (real PostgreSQL): an appended event exists
 * exactly when the caller's transaction commits, and the relay of another process is woken by a NOTIFY at commit —
 * never for a rolled-back change, and not at all when this process relays (it is woken in-process).
 */
describe('OutboxWriter (real PostgreSQL)', () => {
  const pool = new pg.Pool({ connectionString: testEnv().databaseUrl, max: 3 });
  const listener = new pg.Client({ connectionString: testEnv().databaseUrl });
  const notifications: number[] = [];

  /** A relay as the writer sees it: whether this process relays, and its in-process wake-up. */
  const relay = (isRelaying: boolean) => {
    const woken: number[] = [];
    return { woken, relay: { isRelaying, wake: () => woken.push(Date.now()) } as unknown as OutboxRelay };
  };

  /** Runs `work` in a transaction of its own connection, committed or rolled back. */
  const inTransaction = async (end: 'COMMIT' | 'ROLLBACK', work: (client: pg.PoolClient) => Promise<void>) => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await work(client);
      await client.query(end);
    } finally {
      client.release();
    }
  };

  const stored = async (id: string) =>
    (
      await pool.query<{ type: string; subject_id: string; payload: string; traceparent: string | null }>(
        'SELECT type, subject_id, payload::text, traceparent FROM outbox_event WHERE id = $1',
        [id],
      )
    ).rows;

  /** Notifications so far, after a round trip on the listener (a NOTIFY sent at commit has arrived by then). */
  const notified = async () => {
    await listener.query('SELECT 1');
    return notifications.length;
  };

  beforeAll(async () => {
    await listener.connect();
    listener.on('notification', (message) => {
      if (message.channel === OUTBOX_CHANNEL) notifications.push(Date.now());
    });
    await listener.query(`LISTEN ${OUTBOX_CHANNEL}`);
  });
  afterAll(async () => {
    await listener.end();
    await pool.end();
  });

  it('stores the event as published (id, type, subject, the JSON) when the transaction commits, and notifies then', async () => {
    const { relay: otherProcess, woken } = relay(false);
    const writer = new OutboxWriter(otherProcess);
    const event = transactionEvent(randomUUID(), randomUUID(), {}, { type: 'transaction.status_changed' });
    const before = await notified();

    await inTransaction('COMMIT', async (client) => {
      await writer.append(sqlOf(client), event);
      // Not visible to others, and nobody woken, before the commit.
      expect(await stored(event.id)).toEqual([]);
      expect(await notified()).toBe(before);
    });

    expect(await stored(event.id)).toEqual([
      // The JSON as written: the relay publishes these bytes.
      {
        type: 'transaction.status_changed',
        subject_id: event.subjectId,
        payload: JSON.stringify(event),
        traceparent: null,
      },
    ]);
    expect(await notified()).toBe(before + 1);
    expect(woken).toEqual([]);
  });

  it('leaves no event and sends no NOTIFY when the change is rolled back', async () => {
    const writer = new OutboxWriter(relay(false).relay);
    const event = transactionEvent(randomUUID(), null);
    const before = await notified();

    await inTransaction('ROLLBACK', (client) => writer.append(sqlOf(client), event));

    expect(await stored(event.id)).toEqual([]);
    expect(await notified()).toBe(before);
  });

  it('does not NOTIFY when this process relays: the commit wakes the relay in-process', async () => {
    const { relay: ownRelay, woken } = relay(true);
    const writer = new OutboxWriter(ownRelay);
    const event = transactionEvent(randomUUID(), randomUUID());
    const before = await notified();

    await inTransaction('COMMIT', (client) => writer.append(sqlOf(client), event));
    writer.committed();

    expect(await stored(event.id)).toHaveLength(1);
    expect(await notified()).toBe(before);
    expect(woken).toHaveLength(1);
  });
});
