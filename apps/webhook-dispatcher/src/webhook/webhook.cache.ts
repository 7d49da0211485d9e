import { Injectable } from '@nestjs/common';
import { SecretCipher } from '#platform';
import { WebhookDispatcherConfig } from '../config/webhook-dispatcher.config.js';
import { WebhookRepository, type WebhookRow } from './webhook.repository.js';

/** A webhook with its decrypted signing secrets, as an attempt needs it. */
export interface SigningWebhook extends WebhookRow {
  secrets: Array<{ secret: string; expiresAt: Date | null }>;
}

/** Entries are dropped at once on a `webhooks.config` message; this bound covers a missed message. */
const MAX_AGE_MS = 60_000;

interface Entry<T> {
  value: Promise<T>;
  loadedAt: number;
}

/**
 * Webhooks by merchant (for fan-out) and by id with secrets (for delivery), loaded on first use and
 * refreshed when webhook-config announces a change. Concurrent misses share one load.
 */
@Injectable()
export class WebhookCache {
  private readonly byMerchant = new Map<string, Entry<WebhookRow[]>>();
  private readonly byId = new Map<string, Entry<SigningWebhook | undefined>>();
  private readonly cipher: SecretCipher;

  constructor(
    private readonly repository: WebhookRepository,
    config: WebhookDispatcherConfig,
  ) {
    this.cipher = new SecretCipher(config.secretEncryptionKey);
  }

  forMerchant(merchantId: string): Promise<WebhookRow[]> {
    return this.cached(this.byMerchant, merchantId, () => this.repository.findByMerchant(merchantId));
  }

  /** The webhook with the secrets valid right now (newest first); undefined when it was deleted. */
  async forDelivery(webhookId: string): Promise<SigningWebhook | undefined> {
    const webhook = await this.cached(this.byId, webhookId, () => this.loadSigning(webhookId));
    if (!webhook) return undefined;
    const now = Date.now();
    const secrets = webhook.secrets.filter((s) => s.expiresAt === null || s.expiresAt.getTime() > now);
    return { ...webhook, secrets };
  }

  invalidate(change: { webhookId: string; merchantId: string }): void {
    this.byId.delete(change.webhookId);
    this.byMerchant.delete(change.merchantId);
  }

  /** Forgets everything, e.g. after a broker outage during which change messages may have been missed. */
  clear(): void {
    this.byId.clear();
    this.byMerchant.clear();
  }

  private async loadSigning(webhookId: string): Promise<SigningWebhook | undefined> {
    const [webhook, secrets] = await Promise.all([
      this.repository.findById(webhookId),
      this.repository.findSigningSecrets(webhookId),
    ]);
    if (!webhook) return undefined;
    return {
      ...webhook,
      secrets: secrets.map((row) => ({
        secret: this.cipher.decrypt(row.ciphertext, webhookId),
        expiresAt: row.expiresAt,
      })),
    };
  }

  private cached<T>(map: Map<string, Entry<T>>, key: string, load: () => Promise<T>): Promise<T> {
    const entry = map.get(key);
    if (entry && Date.now() - entry.loadedAt < MAX_AGE_MS) return entry.value;
    const value = load();
    map.set(key, { value, loadedAt: Date.now() });
    value.catch(() => map.delete(key)); // a failed load is retried by the next caller
    return value;
  }
}
