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
   * manual ones requested (this one included; rows from before the counter: the manual ones logged). Answers the
   * attempt's place among them; `send` gets the attempt number the dispatcher is to give it — above every number
   * logged and every manual one taken before, so the dispatcher never takes it for another attempt's redelivery.
   * One database transaction: the delivery row is locked first (concurrent resends count one after the other, and
   * the log is read after the lock), and the attempt counts only if `send` succeeds.
   */
  async takeManualAttempt(
    deliveryId: string,
    max: number,
    send: (attemptNumber: number) => Promise<void>,
  ): Promise<{ place: number } | { refused: number } | { gone: true }> {
    return this.deliveries.manager.transaction(async (manager) => {
      const [delivery]: Array<{ manual_attempts: number; last_manual_attempt: number }> = await manager.query(
        'SELECT manual_attempts, last_manual_attempt FROM webhook_delivery WHERE id = $1 FOR UPDATE',
        [deliveryId],
      );
      // Deleted (with its webhook) since it was looked up.
      if (!delivery) return { gone: true } as const;
      const [logged]: Array<{ automatic: number; manual: number; top: number }> = await manager.query(
        `SELECT count(*) FILTER (WHERE NOT manual)::int AS automatic, count(*) FILTER (WHERE manual)::int AS manual,
                coalesce(max(attempt), 0)::int AS top
           FROM webhook_log WHERE delivery_id = $1`,
        [deliveryId],
      );
      const requested = Math.max(delivery.manual_attempts, logged.manual);
      if (logged.automatic + requested >= max) return { refused: logged.automatic + requested };
      const attemptNumber = Math.max(delivery.last_manual_attempt, logged.top) + 1;
      await manager.query('UPDATE webhook_delivery SET manual_attempts = $2, last_manual_attempt = $3 WHERE id = $1', [
        deliveryId,
        requested + 1,
        attemptNumber,
      ]);
      await send(attemptNumber);
      return { place: logged.automatic + requested + 1 };
    });
  }
}
