import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { AmqpClient, QUEUES, type PlatformEvent } from '#messaging';
import { WebhookDispatcherConfig } from '../config/webhook-dispatcher.config.js';
import { FanOutService } from './fan-out.service.js';

/** Events in flight per process while fanning out. */
const EVENT_PREFETCH = 64;

/** Consumes `dispatcher.events`; an event is acked only after all its delivery messages are confirmed. */
@Injectable()
export class FanOutConsumer implements OnApplicationBootstrap {
  private readonly logger = new Logger(FanOutConsumer.name);

  constructor(
    private readonly amqp: AmqpClient,
    private readonly fanOut: FanOutService,
    private readonly config: WebhookDispatcherConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    // Random unless configured: operators see which process takes the load first.
    this.logger.log(`consuming with priority ${this.config.consumerPriority}`);
    await this.amqp.consume(
      QUEUES.dispatcherEvents,
      async (message) => {
        let event: PlatformEvent;
        try {
          event = JSON.parse(message.content.toString()) as PlatformEvent;
        } catch {
          this.logger.error(`rejected an unreadable event (routing key ${message.fields.routingKey}); it is parked`);
          return 'reject';
        }
        await this.fanOut.fanOut(event);
        return 'ack';
      },
      { prefetch: EVENT_PREFETCH, priority: this.config.consumerPriority },
    );
  }
}
