import { randomUUIDv7 } from 'node:crypto';
import { eventKindOf } from '#domain';
import type { PlatformEvent, PlatformEventType } from '#messaging';

/**
 * Builds the PlatformEvent envelope of libs/messaging. `data` is the record as the renderers of libs/domain take it,
 * passed through JSON so that dates become ISO strings.
 */
export function platformEvent(input: {
  type: PlatformEventType;
  merchantId: string;
  integrationId: string | null;
  subjectId: string;
  occurredAt: Date;
  data: object;
}): PlatformEvent {
  return {
    v: 1,
    id: randomUUIDv7(),
    type: input.type,
    category: eventKindOf(input.type),
    merchantId: input.merchantId,
    integrationId: input.integrationId,
    occurredAt: input.occurredAt.toISOString(),
    subjectId: input.subjectId,
    data: JSON.parse(JSON.stringify(input.data)) as Record<string, unknown>,
  };
}

/**
 * The JSON the relay publishes for an outbox row: its payload as written, with the event's `position` in its
 * subject's history — the row's `seq` — added as the last field. A subject's events are written under its row's lock,
 * so a later event of a subject always has a higher seq (the order the relay publishes them in, too); the dispatcher
 * orders a subject's events by it (superseded repeats). Known only once the row exists, so it is not in the payload
 * itself. A payload that is not a JSON object is left as it is (the consumer parks it).
 */
export function withPosition(payload: string, seq: string): string {
  const end = payload.lastIndexOf('}');
  const start = payload.indexOf('{');
  if (start < 0 || end < start) return payload;
  const empty = payload.slice(start + 1, end).trim() === '';
  return `${payload.slice(0, end)}${empty ? '' : ','}"position":${seq}${payload.slice(end)}`;
}
