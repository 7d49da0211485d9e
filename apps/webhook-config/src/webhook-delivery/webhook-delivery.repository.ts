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
    await this.deliveries.insert({ ...delivery, state: 'pending', attempts: 0 });
  }

  findOfWebhook(webhookId: string, deliveryId: string): Promise<WebhookDeliveryEntity | null> {
    return this.deliveries.findOneBy({ webhookId, id: deliveryId });
  }

  /** A resend goes to the webhook's current URL (the merchant may just have fixed it). */
  async retarget(deliveryId: string, url: string): Promise<void> {
    await this.deliveries.update({ id: deliveryId }, { url, updatedAt: () => 'now()' });
  }
}
