import type { WebhookHealthEntity } from './webhook-health.entity.js';
import type { WebhookDisabledReason, WebhookEntity } from './webhook.entity.js';
import type { WebhookHeaderView } from './webhook-header.service.js';

/** How a webhook's deliveries go (CONTRACT §5): `failing` while its latest attempt failed. */
export interface WebhookHealthView {
  state: 'healthy' | 'failing' | 'disabled';
  lastSuccessAt: string | null;
  /** The first failed attempt after the last success; null while the latest attempt succeeded. */
  failingSince: string | null;
  attempts24h: number;
  failures24h: number;
  disabledReason: WebhookDisabledReason | null;
}

/** A webhook as the API shows it. Never contains the secret (only the create answer adds it). */
export interface WebhookView {
  id: string;
  name: string;
  url: string;
  contentType: string;
  version: string;
  retryOnError: boolean;
  events: string[];
  integrationId: string | null;
  enabled: boolean;
  maxPerSecond: number | null;
  skipSupersededRepeats: boolean;
  /** Custom headers, in order; each value only as its last four characters. */
  headers: WebhookHeaderView[];
  health: WebhookHealthView;
  createdAt: string;
  updatedAt: string;
}

/** `health`: the dispatcher's account of its attempts (none yet: undefined); `headers` as shown (masked). */
export function toWebhookView(
  webhook: WebhookEntity,
  health?: WebhookHealthEntity,
  headers: WebhookHeaderView[] = [],
): WebhookView {
  const failingSince = health?.failingSince ?? null;
  return {
    id: webhook.id,
    name: webhook.name,
    url: webhook.url,
    contentType: webhook.contentType,
    version: webhook.version,
    retryOnError: webhook.retryOnError,
    events: [...webhook.events],
    integrationId: webhook.integrationId,
    enabled: webhook.enabled,
    maxPerSecond: webhook.maxPerSecond,
    skipSupersededRepeats: webhook.skipSupersededRepeats,
    headers,
    health: {
      state: !webhook.enabled ? 'disabled' : failingSince ? 'failing' : 'healthy',
      lastSuccessAt: health?.lastSuccessAt?.toISOString() ?? null,
      failingSince: failingSince?.toISOString() ?? null,
      attempts24h: health?.attempts24h ?? 0,
      failures24h: health?.failures24h ?? 0,
      disabledReason: webhook.disabledReason,
    },
    createdAt: webhook.createdAt.toISOString(),
    updatedAt: webhook.updatedAt.toISOString(),
  };
}
