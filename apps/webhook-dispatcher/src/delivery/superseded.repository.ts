import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { SUPERSEDING_EVENT_KINDS } from '#domain';
import type { DeliverySnapshot, EventCategory } from '#messaging';
import { Batcher } from '../common/batcher.js';
import { DatabaseRetry } from '../common/database-retry.js';

/**
 * Kinds of subject whose later events supersede the pending repeats of earlier ones (CONTRACT §5): transactions and
 * subscriptions (`superseding` in #domain's event-kinds.ts). A payout has a single event.
 */
const SUPERSEDING: ReadonlySet<EventCategory> = new Set<EventCategory>(SUPERSEDING_EVENT_KINDS);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The position (in its subject's history) by which a delivery supersedes, or is superseded by, the deliveries of its
 * subject's other events to the same webhook; undefined when it does neither: no position known (an event published
 * before positions, a test delivery), a payout, or a subject id that is not a uuid (the table's key is one).
 */
export function supersedingPosition(
  snapshot: Pick<DeliverySnapshot, 'eventType' | 'subject' | 'position'>,
): number | undefined {
  const { position } = snapshot;
  if (position === undefined || !SUPERSEDING.has(snapshot.eventType) || !UUID.test(snapshot.subject.uuid)) return;
  return position;
}

interface Lookup {
  webhookId: string;
  eventType: string;
  subject: string;
  position: number;
}

/**
 * Superseded repeats (docs/webhook-dispatcher.md): whether a newer event of a delivery's subject has been delivered
 * to its webhook. The newest position delivered per (webhook, subject) is kept in delivery.subject_delivered by the
 * log writer (DeliveryLogWriter), from the same statement as the log entries; here it is only read, by primary key.
 * Lookups of one event-loop turn share one statement (repeats come in bursts when a receiver was down).
 */
/** Rows of delivery.subject_delivered deleted per statement. */
const SUBJECT_DELETE_BATCH = 10_000;

@Injectable()
export class SupersededRepository {
  private readonly lookups = new Batcher<Lookup, boolean>({ maxBatch: 500, lingerMs: 0, concurrency: 2 }, (items) =>
    this.lookUp(items),
  );

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly retry: DatabaseRetry,
  ) {}

  /**
   * Whether an event of the snapshot's subject with a higher position than the snapshot's has been delivered (2xx) to
   * the webhook: the snapshot's delivery is then superseded. False when its position is unknown (see
   * {@link supersedingPosition}). Waits out database outages (DatabaseRetry).
   */
  async newerDelivered(snapshot: DeliverySnapshot): Promise<boolean> {
    const position = supersedingPosition(snapshot);
    if (position === undefined) return false;
    const lookup = { webhookId: snapshot.webhookId, eventType: snapshot.eventType, subject: snapshot.subject.uuid };
    return this.retry.run(() => this.lookups.submit({ ...lookup, position }));
  }

  /**
   * The newest event of each subject delivered to each webhook is needed while an older event's repeat may still
   * come: never after WEBHOOK_LOG_RETENTION (which exceeds the retry schedule; the older event's delivery is gone with
   * its day by then). Rows whose newest delivery is older than `cutoff` go, by the index on their hour, in batches,
   * so no statement holds many row locks for long. Called by the retention job; returns how many went.
   */
  async forgetDeliveredBefore(cutoff: Date): Promise<number> {
    let deleted = 0;
    for (;;) {
      const [, count]: [unknown, number] = await this.db.query(
        `DELETE FROM subject_delivered
          WHERE (webhook_id, event_type, subject_id) IN (
                  SELECT webhook_id, event_type, subject_id FROM subject_delivered WHERE delivered_hour < $1 LIMIT $2)
            AND delivered_hour < $1`,
        [cutoff, SUBJECT_DELETE_BATCH],
      );
      deleted += count;
      if (count < SUBJECT_DELETE_BATCH) return deleted;
    }
  }

  private async lookUp(items: Lookup[]): Promise<boolean[]> {
    const rows: Array<{ i: number }> = await this.db.query(
      `SELECT k.i FROM json_to_recordset($1::json)
                    AS k(i int, "webhookId" uuid, "eventType" text, subject uuid, position bigint)
        WHERE EXISTS (SELECT 1 FROM subject_delivered s
                       WHERE s.webhook_id = k."webhookId" AND s.event_type = k."eventType"
                         AND s.subject_id = k.subject AND s.position > k.position)`,
      [JSON.stringify(items.map((item, i) => ({ i, ...item })))],
    );
    const superseded = items.map(() => false);
    for (const row of rows) superseded[row.i] = true;
    return superseded;
  }
}
