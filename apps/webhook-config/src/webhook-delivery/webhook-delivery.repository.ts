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

  /**
   * How many attempts of a delivery are logged, and the number the dispatcher gives the next one (one more than the
   * latest logged number; a repeat already scheduled may carry it too).
   */
  async attempts(deliveryId: string): Promise<{ logged: number; nextNumber: number }> {
    const [row] = await this.deliveries.query(
      'SELECT count(*)::int AS logged, coalesce(max(attempt), 0) + 1 AS next FROM webhook_log WHERE delivery_id = $1',
      [deliveryId],
    );
    return { logged: Number(row.logged), nextNumber: Number(row.next) };
  }
}
