import type { WebhookEntity } from '#persistence';

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
  createdAt: string;
  updatedAt: string;
}

export function toWebhookView(webhook: WebhookEntity): WebhookView {
  return {
    id: webhook.id,
    name: webhook.name,
    url: webhook.url,
    contentType: webhook.contentType,
    version: webhook.version,
    retryOnError: webhook.retryOnError,
    events: [...webhook.events],
    integrationId: webhook.integrationId,
    createdAt: webhook.createdAt.toISOString(),
    updatedAt: webhook.updatedAt.toISOString(),
  };
}
