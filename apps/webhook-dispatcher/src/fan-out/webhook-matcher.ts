import type { WebhookSubject } from '#domain';
import type { PlatformEvent } from '#messaging';
import type { WebhookRow } from '../webhook/webhook.repository.js';

/**
 * Which webhooks an event fires: those of the event's merchant that selected its type, and — when the
 * webhook is linked to an integration — only events of that integration (payouts belong to none).
 */
export function webhookMatches(
  webhook: Pick<WebhookRow, 'merchantId' | 'events' | 'integrationId'>,
  event: Pick<PlatformEvent, 'merchantId' | 'category' | 'integrationId'>,
): boolean {
  if (webhook.merchantId !== event.merchantId) return false;
  if (!webhook.events.includes(event.category)) return false;
  return webhook.integrationId === null || webhook.integrationId === event.integrationId;
}

/**
 * An operational event (kind `webhook`) about a webhook is never delivered to that webhook while it is disabled
 * (CONTRACT §5): not even recorded as `skipped` for it, so no recover sends it later. Disabled as far as this process
 * knows (its cache), or as the event itself tells (`state: disabled`: the cache may not have heard of the change yet).
 * So `webhook.disabled` about a webhook never reaches it; `webhook.enabled` about it may, once it is enabled.
 */
export function aboutItselfWhileDisabled(
  webhook: Pick<WebhookRow, 'id' | 'enabled'>,
  event: Pick<PlatformEvent, 'category' | 'subjectId'>,
  subject?: WebhookSubject,
): boolean {
  if (event.category !== 'webhook' || event.subjectId !== webhook.id) return false;
  return !webhook.enabled || (subject?.type === 'webhook' && subject.webhook.state === 'disabled');
}
