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
  | 'manualAttempts'
  | 'lastManualAttempt'
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
   * Takes the next manual attempt of a delivery, unless its attempts would exceed `max`: automatic ones logged plus
   * manual ones requested (this one included). Answers the attempt's place among them and the attempt number the
   * dispatcher is to give it — above every number logged and every manual one taken before, so the dispatcher never
   * takes it for another attempt's redelivery. The attempt counts only if `send` (given its number) succeeds: the
   * UPDATE and `send` share a database transaction, which also keeps the delivery row locked meanwhile, so
   * concurrent resends count one after the other. `refused` carries the count reached when the limit is.
   */
  async takeManualAttempt(
    deliveryId: string,
    max: number,
    send: (attemptNumber: number) => Promise<void>,
  ): Promise<{ place: number } | { refused: number } | { gone: true }> {
    const taken = await this.deliveries.manager.transaction(async (manager) => {
      // TypeORM answers an UPDATE with [rows, count].
      const [[row]]: [Array<{ place: number; number: number }>, number] = await manager.query(
        `WITH logged AS (
         SELECT count(*) FILTER (WHERE NOT manual)::int AS automatic, count(*) FILTER (WHERE manual)::int AS manual,
                coalesce(max(attempt), 0)::int AS top
           FROM webhook_log WHERE delivery_id = $1)
       UPDATE webhook_delivery d
          SET manual_attempts = greatest(d.manual_attempts, logged.manual) + 1,
              last_manual_attempt = greatest(d.last_manual_attempt, logged.top) + 1
         FROM logged
        WHERE d.id = $1 AND logged.automatic + greatest(d.manual_attempts, logged.manual) < $2
       RETURNING logged.automatic + d.manual_attempts AS place, d.last_manual_attempt AS number`,
        [deliveryId, max],
      );
      if (row) await send(row.number);
      return row;
    });
    if (taken) return { place: taken.place };
    const [count] = await this.deliveries.query(
      `SELECT count(*) FILTER (WHERE NOT l.manual)::int + greatest(d.manual_attempts, count(*) FILTER (WHERE l.manual)::int) AS n
         FROM webhook_delivery d LEFT JOIN webhook_log l ON l.delivery_id = d.id
        WHERE d.id = $1 GROUP BY d.id`,
      [deliveryId],
    );
    // No row: the delivery was deleted (with its webhook) since it was looked up.
    return count ? { refused: Number(count.n) } : { gone: true };
  }
}
