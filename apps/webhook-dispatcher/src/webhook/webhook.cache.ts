import { Injectable, OnModuleInit } from '@nestjs/common';
import { headerValueContext, isReservedHeaderName } from '#domain';
import { ConfigError, SecretCipher } from '#platform';
import { WebhookDispatcherConfig } from '../config/webhook-dispatcher.config.js';
import { WebhookRepository, type WebhookRow } from './webhook.repository.js';

/** A webhook with its decrypted signing secrets and custom headers, as an attempt needs it. */
export interface SigningWebhook extends WebhookRow {
  secrets: Array<{ secret: string; expiresAt: Date | null }>;
  /**
   * The merchant's custom headers (CONTRACT §5), decrypted once per load; the attempt puts its own headers after them,
   * so ours always win. Shared by every attempt: never changed, never logged.
   */
  headers: Readonly<Record<string, string>>;
}

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/** Entries are dropped at once on a `webhooks.config` message; this bound covers a missed message. */
const MAX_AGE_MS = 60_000;

interface Entry<T> {
  value: Promise<T>;
  loadedAt: number;
}

/** How many of the latest secrets the start-up check tries. */
const KEY_CHECK_SAMPLE = 20;

/**
 * Webhooks by merchant (for fan-out) and by id with secrets (for delivery), loaded on first use and
 * refreshed when webhook-config announces a change. Concurrent misses share one load.
 */
@Injectable()
export class WebhookCache implements OnModuleInit {
  private readonly byMerchant = new Map<string, Entry<WebhookRow[]>>();
  private readonly byId = new Map<string, Entry<SigningWebhook | undefined>>();
  private readonly cipher: SecretCipher;

  constructor(
    private readonly repository: WebhookRepository,
    config: WebhookDispatcherConfig,
  ) {
    this.cipher = new SecretCipher(config.secretEncryptionKey);
  }

  /**
   * Refuses to start when SECRET_ENCRYPTION_KEY opens none of the latest webhook secrets: a key other than
   * webhook-config's would fail every attempt (each message retried until the broker parks it, nothing logged for
   * the merchant). Runs before the consumers start; with no secret yet there is nothing to check.
   */
  async onModuleInit(): Promise<void> {
    const rows = await this.repository.latestSecrets(KEY_CHECK_SAMPLE);
    if (rows.length === 0 || rows.some((row) => this.open(row.ciphertext, row.webhookId) !== undefined)) return;
    throw new ConfigError([
      `SECRET_ENCRYPTION_KEY decrypts none of the latest ${rows.length} webhook secrets: ` +
        'it must be the key webhook-config encrypts them with',
    ]);
  }

  /** The secret (or header value), or undefined when this key does not open it. */
  private open(ciphertext: Buffer, context: string): string | undefined {
    try {
      return this.cipher.decrypt(ciphertext, context);
    } catch {
      return undefined;
    }
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
    const [webhook, secrets, headers] = await Promise.all([
      this.repository.findById(webhookId),
      this.repository.findSigningSecrets(webhookId),
      this.repository.findHeaders(webhookId),
    ]);
    if (!webhook) return undefined;
    return {
      ...webhook,
      headers: this.openHeaders(webhookId, headers),
      secrets: secrets.map((row) => {
        const secret = this.open(row.ciphertext, webhookId);
        if (secret === undefined) {
          throw new Error(
            `cannot decrypt a signing secret of webhook ${webhookId}: SECRET_ENCRYPTION_KEY is not the key ` +
              'webhook-config encrypted it with, or the row is damaged',
          );
        }
        return { secret, expiresAt: row.expiresAt };
      }),
    };
  }

  /**
   * The custom headers as sent: lowercase names (ours are lowercase too, so a name can only be overridden, never
   * doubled), a reserved name dropped (webhook-config refuses them; this is the second line). A value this key cannot
   * open fails the load, as a secret does: sending without it would look delivered to a receiver that needs it.
   */
  private openHeaders(
    webhookId: string,
    rows: Array<{ name: string; ciphertext: Buffer }>,
  ): Readonly<Record<string, string>> {
    if (rows.length === 0) return NO_HEADERS;
    const headers: Record<string, string> = {};
    for (const row of rows) {
      if (isReservedHeaderName(row.name)) continue;
      const value = this.open(row.ciphertext, headerValueContext(webhookId, row.name));
      if (value === undefined) {
        throw new Error(
          `cannot decrypt custom header ${row.name} of webhook ${webhookId}: SECRET_ENCRYPTION_KEY is not the key ` +
            'webhook-config encrypted it with, or the row is damaged',
        );
      }
      headers[row.name.toLowerCase()] = value;
    }
    return Object.freeze(headers);
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
