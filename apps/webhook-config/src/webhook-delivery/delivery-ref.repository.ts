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
  isKept(webhookId: string, deliveryId: string): Promise<boolean> {
    const { from, to } = createdAtRangeOf(deliveryId);
    return this.deliveries
      .createQueryBuilder('delivery')
      .where('delivery.id = :deliveryId AND delivery.webhook_id = :webhookId', { deliveryId, webhookId })
      .andWhere('delivery.created_at BETWEEN CAST(:from AS timestamptz) AND CAST(:to AS timestamptz)', { from, to })
      .getExists();
  }
}
