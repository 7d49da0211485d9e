import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { WebhookDeliveryEntity } from '#persistence';
import { Repository } from 'typeorm';

export type NewDelivery = Pick<
  WebhookDeliveryEntity,
  | 'id'
  | 'webhookId'
  | 'merchantId'
  | 'eventId'
  | 'eventType'
  | 'subject'
  | 'url'
  | 'contentType'
  | 'version'
  | 'retryOnError'
  | 'body'
>;

@Injectable()
export class WebhookDeliveryRepository {
  constructor(
    @InjectRepository(WebhookDeliveryEntity) private readonly deliveries: Repository<WebhookDeliveryEntity>,
  ) {}

  async insert(delivery: NewDelivery): Promise<void> {
    await this.deliveries.insert(delivery);
  }

  findOfWebhook(webhookId: string, deliveryId: string): Promise<WebhookDeliveryEntity | null> {
    return this.deliveries.findOneBy({ webhookId, id: deliveryId });
  }

  /** The number the next attempt of a delivery gets: one more than its latest logged attempt. */
  async nextAttempt(deliveryId: string): Promise<number> {
    const [row] = await this.deliveries.query(
      'SELECT coalesce(max(attempt), 0) + 1 AS next FROM webhook_log WHERE delivery_id = $1',
      [deliveryId],
    );
    return Number(row.next);
  }
}
