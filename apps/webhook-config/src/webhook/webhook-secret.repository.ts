import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, IsNull, MoreThan, Repository } from 'typeorm';
import { WebhookSecretEntity } from './webhook-secret.entity.js';

/** Encrypted signing secrets: the current one has no expiry, rotated ones sign until `expires_at`. */
@Injectable()
export class WebhookSecretRepository {
  constructor(
    private readonly dataSource: DataSource,
    @InjectRepository(WebhookSecretEntity) private readonly secrets: Repository<WebhookSecretEntity>,
  ) {}

  findCurrent(webhookId: string): Promise<WebhookSecretEntity | null> {
    return this.secrets.findOne({ where: { webhookId, expiresAt: IsNull() }, order: { createdAt: 'DESC' } });
  }

  /** When the last rotated-out secret that still signs stops signing, or null. */
  async previousExpiry(webhookId: string): Promise<Date | null> {
    const row = await this.secrets.findOne({
      where: { webhookId, expiresAt: MoreThan(new Date()) },
      order: { expiresAt: 'DESC' },
    });
    return row?.expiresAt ?? null;
  }

  /**
   * Rotation, in one transaction under a lock of the webhook row (two rotations at once cannot both keep a
   * current secret): the current secret expires after `graceMs`, secrets already expired are deleted, and
   * `next` becomes current. The old secret's expiry is then what `previousExpiry` (the reveal) reports.
   */
  async rotate(
    webhookId: string,
    next: Pick<WebhookSecretEntity, 'id' | 'ciphertext'>,
    graceMs: number,
  ): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      await manager.query(`SELECT id FROM webhook WHERE id = $1 FOR UPDATE`, [webhookId]);
      await manager.query(`DELETE FROM webhook_secret WHERE webhook_id = $1 AND expires_at <= now()`, [webhookId]);
      await manager.query(
        `UPDATE webhook_secret SET expires_at = now() + make_interval(secs => $2)
          WHERE webhook_id = $1 AND expires_at IS NULL`,
        [webhookId, graceMs / 1000],
      );
      await manager.insert(WebhookSecretEntity, { ...next, webhookId, expiresAt: null });
    });
  }
}
