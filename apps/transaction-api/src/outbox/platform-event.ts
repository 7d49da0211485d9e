import { randomUUIDv7 } from 'node:crypto';
import type { EventCategory, PlatformEvent } from '#messaging';

/** The event types transaction-api publishes on `payments.events` (the routing key is the type). */
export type PlatformEventType =
  | 'transaction.created'
  | 'transaction.status_changed'
  | 'subscription.created'
  | 'subscription.renewed'
  | 'subscription.payment_failed'
  | 'subscription.cancelled'
  | 'subscription.ended'
  | 'payout.created';

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
