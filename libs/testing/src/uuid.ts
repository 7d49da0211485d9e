/**
 * A version-7 UUID (RFC 9562): a millisecond timestamp first, so that ids made one after another sort in order and a
 * b-tree index on them grows at its right edge. Events, deliveries and log entries get such ids.
 */
export const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
