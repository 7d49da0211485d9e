import { randomUUIDv7 } from 'node:crypto';
import type { EventCategory, PlatformEvent, PlatformEventType } from '#messaging';

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
    category: input.type.slice(0, input.type.indexOf('.')) as EventCategory,
    merchantId: input.merchantId,
    integrationId: input.integrationId,
    occurredAt: input.occurredAt.toISOString(),
    subjectId: input.subjectId,
    data: JSON.parse(JSON.stringify(input.data)) as Record<string, unknown>,
  };
}
