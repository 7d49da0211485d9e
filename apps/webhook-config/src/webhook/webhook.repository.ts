import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, Repository, type EntityManager } from 'typeorm';
import { WebhookHeaderEntity } from './webhook-header.entity.js';
import { WebhookSecretEntity } from './webhook-secret.entity.js';
import { WebhookEntity, type WebhookDisabledReason } from './webhook.entity.js';

export type WebhookSettings = Pick<
  WebhookEntity,
  | 'name'
  | 'url'
  | 'contentType'
  | 'version'
  | 'retryOnError'
  | 'events'
  | 'integrationId'
  | 'enabled'
  | 'disabledReason'
  | 'maxPerSecond'
  | 'skipSupersededRepeats'
>;

/** Webhooks, always looked up together with their merchant: another merchant's id finds nothing. */
@Injectable()
export class WebhookRepository {
  constructor(
    private readonly dataSource: DataSource,
    @InjectRepository(WebhookEntity) private readonly webhooks: Repository<WebhookEntity>,
  ) {}

  listForMerchant(merchantId: string): Promise<WebhookEntity[]> {
    return this.webhooks.find({ where: { merchantId }, order: { createdAt: 'DESC', id: 'DESC' } });
  }

  findOwned(merchantId: string, id: string): Promise<WebhookEntity | null> {
    return this.webhooks.findOneBy({ merchantId, id });
  }

  countForMerchant(merchantId: string): Promise<number> {
    return this.webhooks.countBy({ merchantId });
  }

  /** The webhook, its first secret and its custom headers (values encrypted), in one transaction. */
  async insertWithSecret(
    webhook: Pick<WebhookEntity, 'id' | 'merchantId'> & WebhookSettings,
    secret: Pick<WebhookSecretEntity, 'id' | 'webhookId' | 'ciphertext'>,
    headers: ReadonlyArray<Pick<WebhookHeaderEntity, 'name' | 'ciphertext'>> = [],
  ): Promise<WebhookEntity> {
    await this.dataSource.transaction(async (manager) => {
      await manager.insert(WebhookEntity, webhook);
      await manager.insert(WebhookSecretEntity, { ...secret, expiresAt: null });
      if (headers.length > 0) await manager.insert(WebhookHeaderEntity, headerRows(webhook.id, headers));
    });
    return (await this.findOwned(webhook.merchantId, webhook.id))!;
  }

  /**
   * Applies the changed settings, and when `headers` is given replaces the custom headers with it; null when there is
   * no such webhook of this merchant. `then`, when given, runs in the same transaction once they are applied (an
   * operational event about the change is written with it, or neither).
   */
  async update(
    merchantId: string,
    id: string,
    changes: Partial<WebhookSettings & Pick<WebhookEntity, 'enabledAt'>>,
    headers?: ReadonlyArray<Pick<WebhookHeaderEntity, 'name' | 'ciphertext'>>,
    then?: (manager: EntityManager) => Promise<unknown>,
  ): Promise<WebhookEntity | null> {
    const affected = await this.dataSource.transaction(async (manager) => {
      const result = await manager
        .createQueryBuilder()
        .update(WebhookEntity)
        .set({ ...changes, updatedAt: () => 'now()' })
        .where('id = :id AND merchant_id = :merchantId', { id, merchantId })
        .execute();
      if (!result.affected) return 0;
      if (headers !== undefined) {
        await manager.delete(WebhookHeaderEntity, { webhookId: id });
        if (headers.length > 0) await manager.insert(WebhookHeaderEntity, headerRows(id, headers));
      }
      if (then) await then(manager);
      return result.affected;
    });
    return affected ? this.findOwned(merchantId, id) : null;
  }

  /** Disabled webhooks of every merchant by reason (a reason none is disabled for is absent), index only. */
  async countDisabled(): Promise<Array<{ reason: WebhookDisabledReason; count: number }>> {
    return this.dataSource.query(
      `SELECT disabled_reason AS reason, count(*)::int AS count FROM webhook WHERE NOT enabled GROUP BY disabled_reason`,
    );
  }

  /**
   * Deletes the webhook with its secrets (ON DELETE CASCADE); false when not found. Its deliveries and log are the
   * dispatcher's, which deletes them when the change message tells it the webhook is gone.
   */
  async delete(merchantId: string, id: string): Promise<boolean> {
    const result = await this.webhooks.delete({ merchantId, id });
    return (result.affected ?? 0) > 0;
  }
}

const headerRows = (webhookId: string, headers: ReadonlyArray<Pick<WebhookHeaderEntity, 'name' | 'ciphertext'>>) =>
  headers.map((header, position) => ({ webhookId, position, name: header.name, ciphertext: header.ciphertext }));
