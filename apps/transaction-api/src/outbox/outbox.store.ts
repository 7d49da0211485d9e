import type pg from 'pg';
import type { EventCategory } from '#messaging';

export const OUTBOX_CHANNEL = 'outbox_event';

export interface OutboxRow {
  seq: string;
  id: string;
  type: string;
  subjectId: string;
  /** Whose it is, read from the payload: routes it to the merchant's `payments listen` sessions too. */
  category: EventCategory;
  merchantId: string;
  integrationId: string | null;
  /** The JSON published, exactly as written. */
  payload: string;
  /** The W3C trace context of the request that wrote it, published as the `traceparent` header; null: none. */
  traceparent: string | null;
}

export const PENDING_SQL = `SELECT seq, id, type, subject_id AS "subjectId", payload->>'category' AS category,
                                     payload->>'merchantId' AS "merchantId", payload->>'integrationId' AS "integrationId",
                                     payload::text AS payload, traceparent
                              FROM outbox_event WHERE sent_at IS NULL ORDER BY seq LIMIT $1`;

/**
 * Planner settings of the relay's own connection. Every sent event leaves a dead entry in the pending index until
 * a vacuum; with statistics that expect few pending rows PostgreSQL reads that index as a bitmap, visiting every
 * dead entry's heap page on every round and never marking them dead, so each round costs more than the last (here:
 * 2 ms per round after 30,000 events; commit → published p50 from 2 to 15 ms). An ordered index scan marks dead
 * entries as it passes them (later rounds skip them) and stops after `LIMIT` rows. Set after connecting (options
 * in the connection string would override connection-time options).
 *
 * TCP keepalive on the server's side of this session (10 s idle, 3 probes 5 s apart): the relay lock belongs to the
 * server session, so if the relay's host dies or is cut off, PostgreSQL must notice within about 25 s and end the
 * session — with its defaults (2 hours) no instance could take over the relay for that long.
 */
export const RELAY_SESSION_SETTINGS =
  'SET enable_bitmapscan = off; SET enable_seqscan = off; ' +
  'SET tcp_keepalives_idle = 10; SET tcp_keepalives_interval = 5; SET tcp_keepalives_count = 3';

/** The relay's queries, on the relay's own connection (which also holds its advisory lock). */
export class OutboxStore {
  constructor(private readonly client: pg.Client) {}

  /** Applies {@link RELAY_SESSION_SETTINGS}; call once after connecting. */
  async configureSession(): Promise<void> {
    await this.client.query(RELAY_SESSION_SETTINGS);
  }

  async tryLock(key: number): Promise<boolean> {
    const { rows } = await this.client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [key]);
    return rows[0].locked;
  }

  async listen(channel: string): Promise<void> {
    await this.client.query(`LISTEN ${channel}`);
  }

  /** The oldest unsent events, in publishing order. */
  async pending(limit: number): Promise<OutboxRow[]> {
    const { rows } = await this.client.query<OutboxRow>({ name: 'outbox-pending', text: PENDING_SQL, values: [limit] });
    return rows;
  }

  async markSent(seqs: string[]): Promise<void> {
    await this.client.query({
      name: 'outbox-mark-sent',
      text: 'UPDATE outbox_event SET sent_at = now() WHERE seq = ANY($1::bigint[])',
      values: [seqs],
    });
  }

  /** Deletes published events older than `before`, in batches so no statement holds many locks for long. */
  async deleteSentBefore(before: Date, batch = 10_000): Promise<number> {
    let deleted = 0;
    for (;;) {
      const result = await this.client.query(
        'DELETE FROM outbox_event WHERE seq IN (SELECT seq FROM outbox_event WHERE sent_at < $1 LIMIT $2)',
        [before, batch],
      );
      deleted += result.rowCount ?? 0;
      if ((result.rowCount ?? 0) < batch) return deleted;
    }
  }
}
