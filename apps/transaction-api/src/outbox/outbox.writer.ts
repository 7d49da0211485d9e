import { Injectable } from '@nestjs/common';
import type { PlatformEvent } from '#messaging';
import { activeTraceparent } from '#platform';
import type { Sql } from '../common/sql.js';
import { OUTBOX_CHANNEL } from './outbox.store.js';
import { OutboxRelay } from './outbox.relay.js';

/** The outbox row's values of an event: id, type, subject, the JSON published and the trace it continues. */
function outboxParams(event: PlatformEvent): unknown[] {
  return [event.id, event.type, event.subjectId, JSON.stringify(event), activeTraceparent()];
}

/** SQL that NOTIFYs the relay at commit when `$param` is true (and the SQL condition `and`, if given). */
export const notifyIf = (param: number, and = 'true') =>
  `CASE WHEN ${and} AND $${param}::boolean THEN pg_notify('${OUTBOX_CHANNEL}', '') END`;

/**
 * Appends events to the outbox inside the caller's database transaction, so an event exists exactly when the
 * change it describes was committed. A NOTIFY wakes the relay of another instance at commit; when this process
 * is the relay it is woken in-process instead, because a NOTIFY serialises the commits of every notifying session.
 */
@Injectable()
export class OutboxWriter {
  constructor(private readonly relay: OutboxRelay) {}

  /** Whether a write should NOTIFY: only when the relay runs in another process. */
  get mustNotify(): boolean {
    return !this.relay.isRelaying;
  }

  async append(sql: Sql, event: PlatformEvent): Promise<void> {
    await sql.rows(
      `WITH appended AS (
         INSERT INTO outbox_event (id, type, subject_id, payload, traceparent) VALUES ($1, $2, $3, $4, $5) RETURNING 1
       )
       SELECT ${notifyIf(6)} FROM appended`,
      [...outboxParams(event), this.mustNotify],
      'outbox-append',
    );
  }

  /** Call after a commit that wrote events. */
  committed(): void {
    this.relay.wake();
  }
}
