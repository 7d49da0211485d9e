import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { createdAtRangeOf } from '#domain';
import { DeliveryRef } from './delivery-ref.entity.js';

/** The dispatcher's deliveries, as far as webhook-config may know them (DeliveryRef). */
@Injectable()
export class DeliveryRefRepository {
  constructor(@InjectRepository(DeliveryRef) private readonly deliveries: Repository<DeliveryRef>) {}

  /**
   * Whether delivery `deliveryId` of the webhook is still kept. The lookup reads only the day partitions its id can be
   * in (libs/domain delivery-time.ts).
   */
  /**
   * How many of the webhook's deliveries of events since `since` a recover sends again: those whose latest log entry
   * is failed or skipped (the dispatcher selects them the same way when it does it).
   */
  async countRecoverable(webhookId: string, since: Date): Promise<number> {
    const [{ count }]: Array<{ count: number }> = await this.deliveries.query(
      `SELECT count(*)::int AS count FROM delivery.webhook_delivery_for_webhook_config d
        WHERE d.webhook_id = $1 AND d.created_at >= $2
          AND (SELECT l.outcome FROM delivery.webhook_log_for_webhook_config l
                WHERE l.delivery_id = d.id AND l.created_at >= $2
                ORDER BY l.created_at DESC, l.id DESC LIMIT 1) IN ('failed', 'skipped')`,
      [webhookId, since],
    );
    return count;
  }

  isKept(webhookId: string, deliveryId: string): Promise<boolean> {
    const { from, to } = createdAtRangeOf(deliveryId);
    return this.deliveries
      .createQueryBuilder('delivery')
      .where('delivery.id = :deliveryId AND delivery.webhook_id = :webhookId', { deliveryId, webhookId })
      .andWhere('delivery.created_at BETWEEN CAST(:from AS timestamptz) AND CAST(:to AS timestamptz)', { from, to })
      .getExists();
  }
}
