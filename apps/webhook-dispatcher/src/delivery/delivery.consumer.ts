import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { AmqpClient, ATTEMPT_HEADER, DEFERRALS_HEADER, QUEUES, type DeliveryMessage } from '#messaging';
import { WebhookDispatcherConfig } from '../config/webhook-dispatcher.config.js';
import { DeliveryService } from './delivery.service.js';

/**
 * Consumes `dispatcher.deliveries` with DISPATCHER_CONCURRENCY messages in flight. A message is acked only
 * after its attempt is logged and any repeat is safely queued; if the process dies first, the broker
 * redelivers it to another dispatcher (at-least-once).
 */
@Injectable()
export class DeliveryConsumer implements OnApplicationBootstrap {
  private readonly logger = new Logger(DeliveryConsumer.name);

  constructor(
    private readonly amqp: AmqpClient,
    private readonly deliveries: DeliveryService,
    private readonly config: WebhookDispatcherConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.amqp.consume(
      QUEUES.deliveries,
      async (raw) => {
        let message: DeliveryMessage;
        try {
          message = JSON.parse(raw.content.toString()) as DeliveryMessage;
          if (typeof message.deliveryId !== 'string') throw new Error('no deliveryId');
        } catch {
          this.logger.error('rejected an unreadable delivery message; it is parked');
          return 'reject';
        }
        const attempt = Number(raw.properties.headers?.[ATTEMPT_HEADER] ?? 1);
        const deferrals = Number(raw.properties.headers?.[DEFERRALS_HEADER] ?? 0);
        await this.deliveries.attempt(
          message,
          Number.isInteger(attempt) && attempt >= 1 ? attempt : 1,
          Number.isInteger(deferrals) && deferrals >= 0 ? deferrals : 0,
        );
        return 'ack';
      },
      { prefetch: this.config.concurrency },
    );
  }
}
