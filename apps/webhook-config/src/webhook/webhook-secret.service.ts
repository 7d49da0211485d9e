import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { generateWebhookSecret } from '#domain';
import { SecretCipher } from '#platform';
import { WebhookChangePublisher } from './webhook-change.publisher.js';
import { WebhookLookup } from './webhook.lookup.js';
import { WebhookSecretRepository } from './webhook-secret.repository.js';

/** After a rotation the old secret keeps signing this long, so receivers can switch without losing events. */
export const ROTATION_GRACE_MS = 24 * 60 * 60 * 1000;

/** The answer to a rotation: exactly `{secret}`, the new secret, and no other key. */
export interface RotatedSecret {
  secret: string;
}

/** The answer to a reveal: the secret, and while a rotated-out secret still signs, when it stops. */
export interface SecretView extends RotatedSecret {
  previousSecretExpiresAt: string | null;
}

/** Webhook signing secrets: generated here, encrypted at rest (AES-256-GCM, bound to the webhook id). */
@Injectable()
export class WebhookSecretService {
  constructor(
    private readonly cipher: SecretCipher,
    private readonly secrets: WebhookSecretRepository,
    private readonly lookup: WebhookLookup,
    private readonly changes: WebhookChangePublisher,
  ) {}

  /** A new secret for `webhookId`: the plaintext (shown to the merchant) and the row to store. */
  issue(webhookId: string): { plaintext: string; row: { id: string; webhookId: string; ciphertext: Buffer } } {
    const plaintext = generateWebhookSecret();
    return { plaintext, row: { id: randomUUID(), webhookId, ciphertext: this.cipher.encrypt(plaintext, webhookId) } };
  }

  async reveal(merchantId: string, webhookId: string): Promise<SecretView> {
    await this.lookup.require(merchantId, webhookId);
    const current = await this.secrets.findCurrent(webhookId);
    if (!current) throw new Error(`webhook ${webhookId} has no current secret`);
    const previous = await this.secrets.previousExpiry(webhookId);
    return {
      secret: this.cipher.decrypt(current.ciphertext, webhookId),
      previousSecretExpiresAt: previous?.toISOString() ?? null,
    };
  }

  /** When the replaced secret stops signing is part of the next reveal. */
  async rotate(merchantId: string, webhookId: string): Promise<RotatedSecret> {
    await this.lookup.require(merchantId, webhookId);
    const { plaintext, row } = this.issue(webhookId);
    await this.secrets.rotate(webhookId, row, ROTATION_GRACE_MS);
    await this.changes.changed(merchantId, webhookId);
    return { secret: plaintext };
  }
}
