import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { AmqpClient, platformEvents, QUEUES, readEventSubject, ROUTING_KEYS } from '#messaging';
import { inProcessSpan } from '#platform';
import { WebhookDispatcherConfig } from '../config/webhook-dispatcher.config.js';
import { FanOutService } from './fan-out.service.js';

/** Events in flight per process while fanning out. */
const EVENT_PREFETCH = 64;

/**
 * Consumes `dispatcher.events`; an event is acked only after each of its deliveries' first attempts is logged or
 * handed over to a confirmed message (FanOutService). An event that is
 * not a platform event of a known version is parked in `dispatcher.events.parked`, with its reason.
 */
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
        const event = platformEvents.read(message.content);
        // Its data checked against its category's record schema: a record the renderers cannot take is parked here,
        // not found out at every attempt.
        const subject = event.ok ? readEventSubject(event.value) : event;
        if (event.ok && subject.ok) {
          // With tracing on, the event's CONSUMER span, the child of the relay's publish; its deliveries carry it on
          // (each attempt's span is its child).
          const { id, type } = event.value;
          await inProcessSpan(
            message,
            () => ({ 'event.id': id, 'event.type': type }),
            async (span) => {
              const deliveries = await this.fanOut.fanOut(event.value, subject.value, message.fields.redelivered);
              span?.setAttribute('deliveries', deliveries);
            },
          );
        } else if (!subject.ok) await this.amqp.park(message, ROUTING_KEYS.parkedEvents, subject.reason);
        return 'ack';
      },
      { prefetch: EVENT_PREFETCH, priority: this.config.consumerPriority },
    );
  }
}
