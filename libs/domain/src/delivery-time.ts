/*
 * Where in time a delivery's rows are. The dispatcher's tables (webhook_delivery, webhook_log) are partitioned by day
 * on `created_at`, and a lookup that bounds `created_at` reads only the partitions in its range: one or two instead of
 * every day kept. The ids of deliveries and log entries are version-7 UUIDs, which begin with the Unix time in
 * milliseconds of their making, and every row is created close to the time in its id:
 *
 * - a log entry at its attempt, and its id a moment later (after the POST, at most WEBHOOK_TIMEOUT_MS ≤ 10 min);
 * - a delivery of an event at the event's own time (so that a second fan-out of the event lands on the same row),
 *   when that is within DELIVERY_EVENT_TIME_WINDOW_MS of the fan-out, which made the id; otherwise at the fan-out;
 * - a test delivery at the time in its id (chosen by webhook-config when the merchant asked);
 * - a delivery's log entries at its attempts, all after the fan-out that made its id.
 *
 * ROW_TIME_SLACK_MS covers all of that and the clock differences between hosts. Ids of any other version (rows from
 * before version-7 ids, other producers) bound nothing: their lookups read every partition.
 */

const HOUR_MS = 3_600_000;

/** How far from the fan-out a delivery's `created_at` may be set to its event's time (see above). */
export const DELIVERY_EVENT_TIME_WINDOW_MS = HOUR_MS;

/** A row keyed by a version-7 id is created within this much of the time in its id (see above). */
export const ROW_TIME_SLACK_MS = 2 * HOUR_MS;

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/** The time (Unix ms) a version-7 UUID was made at; undefined for any other UUID. */
export function uuidV7Time(id: string): number | undefined {
  if (!UUID_V7.test(id)) return undefined;
  return Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
}

/**
 * A range of `created_at` for SQL parameters (`created_at BETWEEN $from::timestamptz AND $to::timestamptz`), open
 * ends spelled as PostgreSQL's infinities.
 */
export interface CreatedAtRange {
  from: Date | '-infinity';
  to: Date | 'infinity';
}

const UNBOUNDED: CreatedAtRange = { from: '-infinity', to: 'infinity' };

/** Where the row with this id (a delivery, a log entry) is: within ROW_TIME_SLACK_MS of the time in its id. */
export function createdAtRangeOf(id: string): CreatedAtRange {
  const time = uuidV7Time(id);
  if (time === undefined) return UNBOUNDED;
  return { from: new Date(time - ROW_TIME_SLACK_MS), to: new Date(time + ROW_TIME_SLACK_MS) };
}

/**
 * Where the log entries of delivery `deliveryId` are: from ROW_TIME_SLACK_MS before the time in its id (its fan-out)
 * to now (and the slack, for other hosts' clocks). Resends may add entries at any time after.
 */
export function logOfDeliveryRange(deliveryId: string, now: number = Date.now()): CreatedAtRange {
  const time = uuidV7Time(deliveryId);
  return {
    from: time === undefined ? '-infinity' : new Date(time - ROW_TIME_SLACK_MS),
    to: new Date(now + ROW_TIME_SLACK_MS),
  };
}
